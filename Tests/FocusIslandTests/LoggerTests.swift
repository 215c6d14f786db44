// The log line without a server: every field of a request's line in both formats, what is left
// out, the escaping, and the time against dates whose answer is known (leap years, the ends of
// days, months, years and centuries) and against Foundation's formatter day by day.
import Foundation
import Testing

@testable import FocusIsland

@Suite struct LoggerTests {
    /// The lines a logger of `format` writes while `body` runs.
    static func lines(_ format: LogFormat, _ body: (Logger) -> Void) -> [String] {
        let lines = LogLines()
        body(Logger(format: format, sink: .memory(lines)))
        return lines.all
    }

    static let user = "6f1c7b9e-2d44-4c1a-9a57-0e8a3b2f4d10"

    static func signedInProblem(_ logger: Logger) {
        logger.request(
            id: "req-1", method: "PATCH", route: "/me", status: 400, microseconds: 812, code: "invalid_field", user: user,
            client: "203.0.113.9")
    }

    /// The text after `time=…Z `, which every line starts with.
    static func afterTime(_ line: String) -> Substring {
        let fields = line.dropFirst("time=2026-12-05T14:03:07.123Z ".count)
        return fields
    }

    @Test func aRequestLineAsText() throws {
        let lines = Self.lines(.text, Self.signedInProblem)
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" }.count == 1, "one line, ended")
        #expect(line.wholeMatch(of: /time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z .*\n/) != nil, "the time first")
        #expect(
            Self.afterTime(line)
                == "request_id=req-1 method=PATCH route=/me status=400 duration_us=812 code=invalid_field user=\(Self.user) client=203.0.113.9\n"
        )
    }

    @Test func aRequestLineAsJSON() throws {
        let line = try #require(Self.lines(.json, Self.signedInProblem).first)
        #expect(line.hasPrefix(#"{"time":""#) && line.hasSuffix("}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["request_id"] as? String == "req-1")
        #expect(object["method"] as? String == "PATCH")
        #expect(object["route"] as? String == "/me")
        #expect(object["status"] as? Int == 400)
        #expect(object["duration_us"] as? Int == 812)
        #expect(object["code"] as? String == "invalid_field")
        #expect(object["user"] as? String == Self.user)
        #expect(object["client"] as? String == "203.0.113.9")
        #expect(Set(object.keys).count == 9)
        let keys = line.matches(of: /"([a-z_]+)":/).map { String($0.1) }
        #expect(keys == ["time", "request_id", "method", "route", "status", "duration_us", "code", "user", "client"])
    }

    @Test func fieldsWithNothingToSayAreLeftOut() throws {
        for format in [LogFormat.text, .json] {
            let line = try #require(
                Self.lines(format) {
                    $0.request(
                        id: "r", method: "GET", route: "/health", status: 200, microseconds: 5, code: nil, user: nil,
                        client: nil)
                }.first)
            for key in ["code", "user", "client"] {
                #expect(!line.contains(key), "\(format): no \(key) when there is none")
            }
        }
    }

    @Test func offSilencesRequestsButNotEvents() {
        let lines = Self.lines(.off) { logger in
            Self.signedInProblem(logger)
            logger.log(["level": "info", "message": "mail"])
            logger.info("listening on 127.0.0.1:8080")
            logger.error("the listener lost its connection")
        }
        #expect(lines.count == 2)
        #expect(lines.first.map(Self.afterTime) == "level=info message=\"listening on 127.0.0.1:8080\"\n")
        #expect(lines.last.map(Self.afterTime) == "level=error message=\"the listener lost its connection\"\n")
    }

    @Test func infoAndErrorLinesStartWithTheTimeInBothFormats() throws {
        let json = try #require(Self.lines(.json) { $0.error("no \"reply\" row") }.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "error" && object["message"] as? String == #"no "reply" row"#)
        #expect(json.hasPrefix(#"{"time":""#))
        let text = Self.lines(.text) { $0.log(["level": "info", "push": "apns", "id": .int(42)]) }
        #expect(text.first.map(Self.afterTime) == "level=info push=apns id=42\n")
    }

    /// A value a client chose (a method, an X-Request-Id) cannot end the line or forge a field.
    @Test func valuesAreEscaped() throws {
        let values = ["a b", "x=y", #"say "hi""#, "", "line\nuser=admin", "tab\there", "nul\u{0}", "del\u{7f}", "back\\slash", "café☕"]
        let text = Self.lines(.text) { logger in
            for value in values { logger.log(["message": .string(value)]) }
        }
        #expect(
            text.map(Self.afterTime)
                == [
                    #"message="a b""#, #"message="x=y""#, #"message="say \"hi\"""#, #"message="""#,
                    #"message="line\nuser=admin""#, #"message="tab\there""#, #"message="nul\u0000""#, #"message="del\u007f""#,
                    #"message=back\slash"#, "message=café☕",
                ].map { $0 + "\n" })
        let json = Self.lines(.json) { logger in
            for value in values { logger.log(["message": .string(value)]) }
        }
        for (line, value) in zip(json, values) {
            #expect(line.filter { $0 == "\n" }.count == 1)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] as? String == value, "\(line)")
        }
        let key = Self.lines(.json) { $0.log([#"odd "key""#: "v"]) }
        #expect(key.first.map { $0.contains(#""odd \"key\"":"v""#) } == true)
    }

    // MARK: The time

    static func time(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        LogTime.append(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func milliseconds(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0)
        -> Int64
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func knownTimes() {
        #expect(Self.time(0) == "1970-01-01T00:00:00.000Z")
        #expect(Self.time(-1) == "1969-12-31T23:59:59.999Z", "the millisecond before the epoch")
        #expect(Self.time(1_796_479_387_123) == "2026-12-05T14:03:07.123Z")
        #expect(Self.time(951_782_399_999) == "2000-02-28T23:59:59.999Z")
        #expect(Self.time(951_782_400_000) == "2000-02-29T00:00:00.000Z", "2000 is a leap year (divisible by 400)")
        #expect(Self.time(951_868_800_000) == "2000-03-01T00:00:00.000Z")
        #expect(Self.time(1_709_164_800_000) == "2024-02-29T00:00:00.000Z")
        #expect(Self.time(4_107_542_399_999) == "2100-02-28T23:59:59.999Z")
        #expect(Self.time(4_107_542_400_000) == "2100-03-01T00:00:00.000Z", "2100 is not (divisible by 100)")
        #expect(Self.time(-2_203_977_600_000) == "1900-02-28T00:00:00.000Z")
        #expect(Self.time(-2_203_891_200_000) == "1900-03-01T00:00:00.000Z")
        #expect(Self.time(1_798_761_599_999) == "2026-12-31T23:59:59.999Z")
        #expect(Self.time(1_798_761_600_000) == "2027-01-01T00:00:00.000Z")
        #expect(Self.time(253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
    }

    /// Every day from 1900 to 2400, at its first millisecond, its last or one in between in
    /// turn: the date and time as Foundation formats the whole second, then the milliseconds.
    @Test func everyDayAgreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let first = Self.milliseconds(1900, 1, 1) / 86_400_000
        let last = Self.milliseconds(2400, 12, 31) / 86_400_000
        var disagreements: [String] = []
        for day in first...last {
            let offset: Int64 = [0, 45_296_789, 86_399_999][Int((day - first) % 3)]
            let milliseconds = day * 86_400_000 + offset
            let whole = formatter.string(from: Date(timeIntervalSince1970: Double(day * 86_400 + offset / 1000)))
            let fraction = String(1000 + offset % 1000).dropFirst()
            let expected = whole.dropLast() + "." + fraction + "Z"
            let made = Self.time(milliseconds)
            if made != expected { disagreements.append("\(made) (Foundation: \(expected))") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test func nowIsTheRealTimeClock() {
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let now = LogTime.now()
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(before - 1 <= now && now <= after + 1)
    }
}

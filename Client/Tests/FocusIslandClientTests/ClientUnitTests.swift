// The client's parts that need no server: the SSE parser, times, the retry rules, URLs, the
// strict-decoding comparison, the offline queue's file, typed errors, and nulls written back.
import Foundation
import Testing

@testable import FocusIslandClient

@Suite struct ServerSentEventsTests {
    @Test func framesSplitAcrossChunksAndLineEndings() {
        var parser = ServerSentEvents()
        var messages = parser.feed(Data("retry: 2000\n\n: heartbeat\n\nid: 7\nevent: balance.changed\nda".utf8))
        #expect(messages == [ServerSentMessage(retry: 2000)])
        messages = parser.feed(Data("ta: {\"id\":7}\r\n\r\nid: 8\rdata: a\rdata: b\r\r".utf8))
        #expect(
            messages == [
                ServerSentMessage(id: "7", event: "balance.changed", data: "{\"id\":7}"),
                ServerSentMessage(id: "8", data: "a\nb"),
            ])
    }

    @Test func aMessageWithoutFieldsIsNoMessage() {
        var parser = ServerSentEvents()
        #expect(parser.feed(Data("\n\n:comment only\n\n".utf8)).isEmpty)
    }

    @Test func aStoppingServersLastFrameSetsWhereTheNextStreamResumes() {
        var parser = ServerSentEvents()
        let hint = parser.feed(Data("id: 41\nretry: 250\n\n".utf8))
        #expect(hint == [ServerSentMessage(id: "41", retry: 250)])
        #expect(EventsLoop.cursor(after: hint[0], event: nil, current: nil) == 41)
        #expect(EventsLoop.cursor(after: ServerSentMessage(retry: 2000), event: nil, current: 7) == 7)
    }
}

@Suite struct TimeTests {
    @Test func microsecondsSurviveARoundTrip() throws {
        let time = Time(rawValue: "2026-11-30T08:00:00.123456Z")
        let date = try #require(time.date)
        #expect(Time(date) == time)
        #expect(Time(Date(timeIntervalSince1970: 0)).rawValue == "1970-01-01T00:00:00.000000Z")
        #expect(Time(rawValue: "2026-11-30T09:00:00+01:00").date == Time(rawValue: "2026-11-30T08:00:00.000000Z").date)
        #expect(Time(rawValue: "yesterday").date == nil)
    }

    @Test func aTimeIsItsStringInJSON() throws {
        let encoded = try JSONEncoder().encode([Time(rawValue: "2026-11-30T08:00:00.000000Z")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["2026-11-30T08:00:00.000000Z"]"#)
    }
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 4, baseDelay: 0.1, maxDelay: 1, maxRetryAfter: 10)

    func problem(_ status: Int, _ code: String, retryAfter: TimeInterval? = nil) -> FocusIslandError {
        .problem(ServerProblem(status: status, code: ProblemCode(rawValue: code), detail: "", retryAfter: retryAfter))
    }

    @Test func transientFailuresAreRetriedWithBackoff() throws {
        let first = try #require(policy.delay(after: .transport(URLError(.networkConnectionLost)), attempt: 1))
        #expect((0.1...0.15).contains(first))
        let third = try #require(policy.delay(after: problem(503, "busy"), attempt: 3))
        #expect((0.4...0.6).contains(third))
        #expect(policy.delay(after: problem(503, "busy"), attempt: 10)! <= 1.5)
        #expect(policy.delay(after: .transport(URLError(.timedOut)), attempt: 1) != nil)
        #expect(policy.delay(after: problem(408, "request_timeout"), attempt: 1) != nil)
    }

    @Test func retryAfterIsWaitedForWhenShortEnough() {
        #expect(policy.delay(after: problem(429, "too_many_streams", retryAfter: 3), attempt: 1) == 3)
        #expect(policy.delay(after: problem(429, "too_many_attempts", retryAfter: 900), attempt: 1) == nil)
        #expect(policy.delay(after: problem(429, "too_many_pending"), attempt: 1) == nil)
    }

    @Test func finalAnswersAreNotRetried() {
        #expect(policy.delay(after: problem(409, "insufficient_funds"), attempt: 1) == nil)
        #expect(policy.delay(after: problem(500, "internal_error"), attempt: 1) == nil)
        #expect(policy.delay(after: .transport(URLError(.cancelled)), attempt: 1) == nil)
        #expect(policy.delay(after: .decoding(type: "Item", status: 200, description: ""), attempt: 1) == nil)
    }
}

@Suite struct RequestTests {
    @Test func queryPlusSignsAreEscapedAndPathsJoin() throws {
        let client = try FocusIslandClient(baseURL: URL(string: "https://api.example.com/v1/")!)
        let url = client.url("/focus-sessions", [URLQueryItem(name: "from", value: "2026-11-30T08:00:00+01:00")])
        #expect(url.absoluteString == "https://api.example.com/v1/focus-sessions?from=2026-11-30T08:00:00%2B01:00")
    }

    @Test func strictDecodingComparesWhatTheAPIMeans() throws {
        let said = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"a":null,"id":"8a1c1c1e-0000-4000-8000-00000000000a","n":[1,{"b":null}]}"#.utf8))
        let kept = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"id":"8A1C1C1E-0000-4000-8000-00000000000A","n":[1,{}]}"#.utf8))
        #expect(said.normalized == kept.normalized)
        let more = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"id":"x","extra":1}"#.utf8))
        let less = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"id":"x"}"#.utf8))
        #expect(more.normalized.difference(from: less.normalized) == "$.extra only on one side")
    }

    @Test func theCacheKeepsAccountsApart() {
        let url = URL(string: "https://api.example.com/friends")!
        #expect(ConditionalCache.key(url, token: "a") != ConditionalCache.key(url, token: "b"))
        #expect(ConditionalCache.key(url, token: "a") == ConditionalCache.key(url, token: "a"))
    }
}

@Suite struct SessionQueueFileTests {
    @Test func queuedSessionsOutliveTheQueueAndAFailedFlush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("focus-island-client-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("queue.json")
        // Nothing listens on port 9 of this machine: every flush fails in transit.
        let offline = try FocusIslandClient(baseURL: URL(string: "http://127.0.0.1:9")!, token: "t", retryPolicy: .none)
        let queue = try SessionQueue(fileURL: file, client: offline)
        let item = SessionBatchItem(
            id: UUID(), startedAt: Time(rawValue: "2026-11-30T08:00:00Z"), endedAt: Time(rawValue: "2026-11-30T08:25:00Z"))
        try await queue.enqueue(item)
        var rated = item
        rated.rating = .good
        try await queue.enqueue(rated)  // the same session, rated since: replaces it
        await #expect(throws: FocusIslandError.self) { try await queue.flush() }
        // Typed throws: the caught error is a FocusIslandError without a cast.
        do {
            try await queue.flush()
            Issue.record("a flush with nothing listening succeeded")
        } catch {
            guard case .transport = error else {
                Issue.record("not a transport failure: \(error)")
                return
            }
        }
        let reopened = try SessionQueue(fileURL: file, client: offline)
        #expect(await reopened.pending == [rated])
        try await reopened.remove(id: item.id)
        #expect(try await SessionQueue(fileURL: file, client: offline).pending.isEmpty)
    }
}

@Suite struct TypedErrorTests {
    @Test func aBaseURLIsCheckedOnceWhenTheClientIsMade() throws {
        for text in ["file:///tmp/focus", "/v1", "https://api.example.com/v1?x=1", "https://api.example.com/#top", "mailto:a@b.c"] {
            let url = try #require(URL(string: text))
            #expect(throws: FocusIslandError.invalidBaseURL(url.absoluteString)) { try FocusIslandClient(baseURL: url) }
        }
        let plain = try FocusIslandClient(baseURL: #require(URL(string: "http://127.0.0.1:8080")))
        #expect(plain.url("/me", []).absoluteString == "http://127.0.0.1:8080/me")
        let nested = try FocusIslandClient(baseURL: #require(URL(string: "https://api.example.com/v%201/")))
        #expect(nested.url("/me", []).absoluteString == "https://api.example.com/v%201/me")
    }

    @Test func foundationErrorsBecomeTheirCases() throws {
        #expect(FocusIslandError.wrapping(CancellationError()) == .cancelled)
        #expect(FocusIslandError.wrapping(URLError(.timedOut)) == .transport(URLError(.timedOut)))
        let decoding = FocusIslandError.wrapping(
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad")), type: "Item", status: 200)
        guard case .decoding("Item", 200, _) = decoding else {
            Issue.record("not a decoding failure: \(decoding)")
            return
        }
        struct Reading: Codable { var value: Double }
        #expect(throws: FocusIslandError.self) { try FocusIslandClient.encode(Reading(value: .nan)) }
        do {
            _ = try FocusIslandClient.encode(Reading(value: .infinity))
        } catch {
            guard case .encoding(let type, _) = error else {
                Issue.record("not an encoding failure: \(error)")
                return
            }
            #expect(type.hasSuffix("Reading"))
        }
        #expect(RetryPolicy().delay(after: .cancelled, attempt: 1) == nil)
    }

    @Test func theEventsSequenceFailsWithAFocusIslandError() {
        if #available(macOS 15, iOS 18, *) {
            #expect(EventSequence.Failure.self == FocusIslandError.self)
            #expect(EventSequence.Element.self == Event.self)
        }
    }

    @Test func aQueueFileThatIsNotAQueueIsAStorageError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("focus-island-client-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("queue.json")
        try Data("not json".utf8).write(to: file)
        let client = try FocusIslandClient(baseURL: #require(URL(string: "http://127.0.0.1:9")))
        do {
            _ = try SessionQueue(fileURL: file, client: client)
            Issue.record("a file that is not a queue opened")
        } catch {
            guard case .storage(let path, _) = error else {
                Issue.record("not a storage failure: \(error)")
                return
            }
            #expect(path == file.path)
        }
    }
}

@Suite struct ExplicitNullTests {
    /// A member the schema requires but allows null is written as null; an optional member the
    /// server may leave out is left out.
    @Test func requiredNullableMembersAreWrittenAsNull() throws {
        let said = #"{"furniture":null,"pet":null,"sound":null}"#
        let selected = try JSONDecoder().decode(Selected.self, from: Data(said.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(selected), as: UTF8.self) == said)
        let item = Item(id: UUID(), kind: .pet, name: "Cat", description: "A cat.", price: 10, image: "cat.png", sortOrder: 1)
        let object = try #require(JSONSerialization.jsonObject(with: encoder.encode(item)) as? [String: Any])
        #expect(object["image_url"] is NSNull)
        #expect(object["sound"] == nil && object["sound_url"] == nil)
    }
}

// The request log line through the real server: a server of its own on the test database, in
// each format, whose logger keeps its lines in memory (LogSink.memory) instead of writing them
// to standard output. Each request carries an X-Request-Id of its own, which finds its line.
// What a line says: the route's template, the status, the problem's code (SQL's, raised or
// answered, and the HTTP layer's), the user SQL signed the request in as, and the client's
// address; never a token, an email, a password or a body.
import FocusIsland
import Foundation
import Testing

@Suite struct LogHTTPTests {
    /// A server whose lines are kept, as TestServer.another() makes one (never stopped, as the
    /// shared one).
    struct Logged: Sendable {
        let application: Application
        let lines: LogLines
        var client: HTTPClient { HTTPClient(port: application.server.port) }
    }

    static let text: Result<Logged, Error> = Result { try start(.text) }
    static let json: Result<Logged, Error> = Result { try start(.json) }

    static func start(_ format: LogFormat) throws -> Logged {
        var configuration = try TestServer.running().application.configuration
        configuration.port = 0
        configuration.metricsPort = nil
        let lines = LogLines()
        let application = try Application(configuration: configuration, logger: Logger(format: format, sink: .memory(lines)))
        try application.start(publishAssets: false)
        return Logged(application: application, lines: lines)
    }

    static func server(_ format: LogFormat) throws -> Logged { try (format == .json ? json : text).get() }

    /// A request to `server` with an id of its own: the answer, and its line's fields.
    static func exchange(
        _ server: Logged, _ method: String, _ target: String, token: String? = nil, json: String? = nil,
        headers: [String: String] = [:]
    ) throws -> (answer: HTTPResult, line: [String: String]) {
        let id = "log-test-" + UUID().uuidString
        var headers = headers
        headers["X-Request-Id"] = id
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if json != nil { headers["Content-Type"] = "application/json" }
        let answer = try server.client.send(method, target, headers: headers, body: json.map { Array($0.utf8) })
        // Written before the answer is sent: it is there by now.
        let lines = server.lines.all.filter { $0.contains(id) }
        try #require(lines.count == 1, "one line for \(method) \(target): \(lines)")
        let fields = try fields(lines[0])
        #expect(fields["request_id"] == id)
        return (answer, fields)
    }

    /// A line's fields, whichever its format, numbers as text.
    static func fields(_ line: String) throws -> [String: String] {
        if line.hasPrefix("{") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object.mapValues { value in (value as? String) ?? "\(value)" }
        }
        var fields: [String: String] = [:]
        for match in line.matches(of: /([a-z_]+)=("(?:[^"\\]|\\.)*"|[^ \n]+)/) {
            let value = String(match.2)
            fields[String(match.1)] =
                value.hasPrefix("\"")
                ? (try JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed) as? String) ?? value
                : value
        }
        return fields
    }

    /// What every request line says, whatever it answered.
    static func expectEveryField(_ line: [String: String], _ method: String, route: String, status: Int) {
        #expect(line["time"]?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "time: \(line)")
        #expect(line["method"] == method)
        #expect(line["route"] == route, "\(line)")
        #expect(line["status"] == String(status))
        #expect(line["duration_us"].flatMap(Int.init).map { $0 >= 0 } == true)
        #expect(line["client"] == "127.0.0.1")
    }

    @Test(arguments: [LogFormat.text, .json])
    func signedInProblemsNameTheUserTheCodeAndTheRoute(format: LogFormat) throws {
        let server = try Self.server(format)
        let account = try Transport.socket.client.register("logged")
        let unknown = UUID().uuidString.lowercased()

        // Raised by SQL (api.fail) after the token was accepted: the error itself names the user.
        let raised = try Self.exchange(server, "GET", "/users/\(unknown)", token: account.token)
        #expect(raised.answer.status == 404 && raised.answer.code == "user_not_found")
        Self.expectEveryField(raised.line, "GET", route: "/users/{id}", status: 404)
        #expect(raised.line["code"] == "user_not_found")
        #expect(raised.line["user"] == account.id)
        #expect(!raised.line.values.contains { $0.contains(unknown) }, "the path's id is not in the line")

        // Answered by SQL as a reply row (api.problem): the statement's user column.
        let answered = try Self.exchange(
            server, "POST", "/friend-requests", token: account.token, json: #"{"email":"nobody-\#(unknown)@example.com"}"#)
        #expect(answered.answer.status == 404 && answered.answer.code == "user_not_found")
        Self.expectEveryField(answered.line, "POST", route: "/friend-requests", status: 404)
        #expect(answered.line["code"] == "user_not_found")
        #expect(answered.line["user"] == account.id)

        // The HTTP layer's own: the body's type is refused before SQL runs, so no user is known.
        let unsupported = try Self.exchange(server, "PATCH", "/me", token: account.token, headers: ["Content-Type": "text/plain"])
        #expect(unsupported.answer.status == 415)
        #expect(unsupported.line["code"] == "unsupported_media_type" && unsupported.line["user"] == nil)
    }

    @Test(arguments: [LogFormat.text, .json])
    func signedInAnswersAndReplaysNameTheUser(format: LogFormat) throws {
        let server = try Self.server(format)
        let account = try Transport.socket.client.register("logged")
        let me = try Self.exchange(server, "GET", "/me", token: account.token)
        #expect(me.answer.status == 200)
        Self.expectEveryField(me.line, "GET", route: "/me", status: 200)
        #expect(me.line["user"] == account.id && me.line["code"] == nil)
        // GET /events is answered at the socket (EventsEndpoint), a long-poll here: the same line.
        let poll = try Self.exchange(server, "GET", "/events?wait=0", token: account.token)
        #expect(poll.answer.status == 200)
        Self.expectEveryField(poll.line, "GET", route: "/events", status: 200)
        #expect(poll.line["user"] == account.id)

        // A keyed write runs under api.idempotent; its retry replays without running the endpoint.
        let key = ["Idempotency-Key": UUID().uuidString]
        let first = try Self.exchange(
            server, "POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#, headers: key)
        let replay = try Self.exchange(
            server, "POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#, headers: key)
        #expect(first.answer.status == 201 && replay.answer.text == first.answer.text)
        #expect(first.line["user"] == account.id && replay.line["user"] == account.id)
    }

    @Test(arguments: [LogFormat.text, .json])
    func publicAnswersNameNoUser(format: LogFormat) throws {
        let server = try Self.server(format)
        let account = try Transport.socket.client.register("logged")

        let catalog = try Self.exchange(server, "GET", "/shop/items", token: account.token)
        #expect(catalog.answer.status == 200)
        Self.expectEveryField(catalog.line, "GET", route: "/shop/items", status: 200)
        #expect(catalog.line["user"] == nil && catalog.line["code"] == nil, "a public route signs no one in, token or not")
        let cached = try Self.exchange(server, "GET", "/shop/items", token: account.token)
        #expect(cached.line["user"] == nil, "nor does its answer kept in memory")

        let login = try Self.exchange(
            server, "POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"wrong horse"}"#)
        #expect(login.answer.status == 401)
        Self.expectEveryField(login.line, "POST", route: "/auth/login", status: 401)
        #expect(login.line["code"] == "invalid_credentials" && login.line["user"] == nil)

        let unsigned = try Self.exchange(server, "GET", "/me")
        Self.expectEveryField(unsigned.line, "GET", route: "/me", status: 401)
        #expect(unsigned.line["code"] == "unauthorized" && unsigned.line["user"] == nil)

        let revoked = try Self.exchange(server, "GET", "/me", token: "not-a-token")
        #expect(revoked.line["code"] == "unauthorized" && revoked.line["user"] == nil, "a token SQL refuses signs no one in")

        let nowhere = try Self.exchange(server, "GET", "/no/such/\(UUID().uuidString)")
        Self.expectEveryField(nowhere.line, "GET", route: "-", status: 404)
        #expect(nowhere.line["code"] == "not_found")

        let large = try Self.exchange(
            server, "POST", "/auth/register", json: #"{"email":"\#(String(repeating: "x", count: 70_000))"}"#)
        Self.expectEveryField(large.line, "POST", route: "/auth/register", status: 413)
        #expect(large.line["code"] == "body_too_large")
    }

    /// Sign-up, sign-in and a password change (refused, then made), with and without an
    /// Idempotency-Key: no line holds a token, the email, a password or any body.
    @Test(arguments: [LogFormat.text, .json])
    func noSecretReachesTheLog(format: LogFormat) throws {
        let server = try Self.server(format)
        let before = server.lines.all.count
        let email = TestEnvironment.email("secret")
        let signUp = try Self.exchange(
            server, "POST", "/auth/register",
            json: #"{"email":"\#(email)","password":"correct horse","display_name":"Secret Keeper"}"#,
            headers: ["Idempotency-Key": UUID().uuidString])
        let token = try #require(signUp.answer.json["token"] as? String, "\(signUp.answer.text)")
        let signIn = try Self.exchange(server, "POST", "/auth/login", json: #"{"email":"\#(email)","password":"correct horse"}"#)
        let second = try #require(signIn.answer.json["token"] as? String)
        let refused = try Self.exchange(
            server, "POST", "/me/password", token: token, json: #"{"current_password":"wrong horse","new_password":"brand new horse"}"#)
        #expect(refused.answer.status == 403)
        let changed = try Self.exchange(
            server, "POST", "/me/password", token: second,
            json: #"{"current_password":"correct horse","new_password":"brand new horse"}"#,
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(changed.answer.status == 204)
        #expect(changed.line["user"] == signUp.answer.json["user"].flatMap { ($0 as? [String: Any])?["id"] as? String })

        let lines = server.lines.all.dropFirst(before).joined()
        let secrets = [
            token, second, email, email.split(separator: "@")[0].description, "correct horse", "wrong horse",
            "brand new horse", "Secret Keeper", "current_password",
        ]
        for secret in secrets {
            #expect(!lines.contains(secret), "\(secret) is in the log")
        }
    }
}

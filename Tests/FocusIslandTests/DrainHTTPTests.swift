import Foundation
import Glibc
import Testing

// A graceful stop end to end (Server/MHD/GracefulStop.swift, docs/operations.md "Stopping and
// rolling deploys"), each on a server of its own, stopped for good: /ready says 503 while /health
// says 200, a request in flight is answered and committed once (on a worker, and suspended for
// the database: the stop that aborted libmicrohttpd), a request held past STOP_GRACE gets 503 and
// the stop returns, a stream gets its retry hint and resumes elsewhere with nothing missed or
// repeated, a long-poll answers, idle kept-alive connections close, and no connection is taken
// after the listener closes. A purchase is held by a transaction of the test's that locks the
// buyer's row (api.lock_user waits for it), released well within focus_api's 5 s statement_timeout.
@testable import FocusIsland

@Suite(.serialized) struct DrainHTTPTests {
    /// A server of its own on the shared one's database, with STOP_GRACE, DRAIN_DELAY and DB_ASYNC.
    func server(grace: Double = 5, delay: Double = 0, asynchronous: Bool = true) throws -> Application {
        var configuration = try TestServer.running().application.configuration
        configuration.port = 0
        configuration.metricsPort = nil
        configuration.stopGrace = grace
        configuration.drainDelay = delay
        configuration.asyncDatabase = asynchronous
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        try application.start(publishAssets: false)
        return application
    }

    /// Runs the stop on a thread of its own: its report arrives in `results`, `done` is left then.
    func stopInBackground(_ application: Application) -> (results: ResultBox<DrainReport>, done: DispatchGroup) {
        inBackground { _ in application.stop() }
    }

    /// Waits (at most 10 s) until `condition` holds.
    func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while try !condition() && Date() < deadline { usleep(5_000) }
        return try condition()
    }

    /// An account with coins, and a shop item it can buy for a price above 0.
    func buyer() throws -> (account: Account, itemID: String) {
        let client = Transport.socket.client
        let account = try client.register("drain")
        try TestEnvironment.owner().execute("select app.grant_coins($1, 100000, 'test')", [account.id])
        let catalog = try client.send("GET", "/shop/items").json
        let items = ["pets", "sounds", "furniture"].flatMap { catalog[$0] as? [[String: Any]] ?? [] }
        let item = try #require(items.first { ($0["price"] as? Int ?? 0) > 0 }, "no item with a price in the catalog")
        return (account, try #require(item["id"] as? String))
    }

    func purchase(_ port: UInt16, _ account: Account, _ itemID: String, key: String? = nil) throws -> HTTPResult {
        var headers = ["Authorization": "Bearer \(account.token)", "Content-Type": "application/json"]
        if let key { headers["Idempotency-Key"] = key }
        return try HTTPClient(port: port).send(
            "POST", "/shop/purchases", headers: headers, body: Array(#"{"item_id":"\#(itemID)"}"#.utf8))
    }

    /// Purchases that took coins: one ledger row each.
    func spends(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select count(*)::text from app.coin_ledger where user_id = $1 and entry = 'spend'", [account.id])
    }

    /// Whether a new connection to `port` is taken.
    func connects(_ port: UInt16) -> Bool {
        guard let fd = try? loopbackSocket(port: port) else { return false }
        close(fd)
        return true
    }

    @Test func whileDrainingReadyAnswers503AndHealth200AndEveryAnswerClosesItsConnection() throws {
        let application = try server(grace: 1, delay: 1)
        let port = application.server.port
        #expect(try HTTPClient(port: port).send("GET", "/ready").status == 200)
        let (stopped, done) = stopInBackground(application)
        #expect(eventually { application.server.drain.draining })

        // DRAIN_DELAY: the listener still takes connections while the balancer notices.
        let ready = try HTTPClient(port: port).send("GET", "/ready")
        #expect(ready.status == 503 && ready.code == "draining")
        #expect(ready.header("Content-Type") == "application/problem+json")
        #expect(ready.header("Connection")?.lowercased() == "close")
        let health = try HTTPClient(port: port).send("GET", "/health")
        #expect(health.status == 200)
        #expect(health.header("Connection")?.lowercased() == "close")

        #expect(done.wait(timeout: .now() + 5) == .success, "the stop returns")
        let report = try #require(try stopped.values.first??.get())
        #expect(report.milliseconds >= 1000 && report.stuck == 0)
        #expect(!connects(port), "no connection is taken once the listener closed")
    }

    @Test(arguments: [false, true])
    func aPurchaseInFlightWhenTheStopBeginsIsAnsweredAndCommittedOnce(asynchronous: Bool) throws {
        let application = try server(grace: 5, asynchronous: asynchronous)
        let port = application.server.port
        let (account, itemID) = try buyer()
        let lock = try RowLock(user: account.id)
        let (answers, answered) = inBackground { _ in try purchase(port, account, itemID) }
        #expect(try eventually { try lock.waiters() == 1 }, "the purchase waits for the buyer's row")
        // DB_ASYNC=on: past DB_ANSWER_WAIT the request is suspended, the case that aborted the stop.
        if asynchronous { #expect(application.server.suspended.count == 1) }

        let (stopped, done) = stopInBackground(application)
        #expect(eventually { application.server.drain.draining })
        #expect(eventually { !connects(port) }, "the listener closes while the purchase is held")
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "the stop waits for the purchase")
        try lock.release()

        #expect(answered.wait(timeout: .now() + 5) == .success)
        let answer = try #require(try answers.values.first??.get())
        #expect(answer.status == 201, "\(answer.status) \(answer.text)")
        #expect(answer.header("Connection")?.lowercased() == "close")
        #expect(done.wait(timeout: .now() + 5) == .success, "the stop returns")
        let report = try #require(try stopped.values.first??.get())
        #expect(report.inFlight == 1 && report.cutOff == 0 && report.stuck == 0)
        #expect(try spends(account) == "1", "charged exactly once")
    }

    @Test func aPurchaseHeldPastTheGraceIsAnswered503AndItsRetryReplaysWhatTheDatabaseDid() throws {
        let application = try server(grace: 0.3)
        let port = application.server.port
        let (account, itemID) = try buyer()
        let key = "drain-\(UInt64.random(in: 0 ... .max))"
        let lock = try RowLock(user: account.id)
        let (answers, answered) = inBackground { _ in try purchase(port, account, itemID, key: key) }
        #expect(try eventually { try lock.waiters() == 1 })
        #expect(application.server.suspended.count == 1)

        let started = Date()
        let report = application.stop()
        #expect(Date().timeIntervalSince(started) < 3, "STOP_GRACE and a second at most")
        #expect(report.cutOff == 1 && report.stuck == 0)
        #expect(answered.wait(timeout: .now() + 5) == .success)
        let answer = try #require(try answers.values.first??.get())
        #expect(answer.status == 503 && answer.code == "shutting_down")
        #expect(answer.header("Retry-After") == "1")

        // The statement was left running: it commits once the row is free, and the retry (on
        // another server, with the same key) waits for it and replays its answer.
        try lock.release()
        let retry = try purchase(TestServer.running().server.port, account, itemID, key: key)
        #expect(retry.status == 201, "\(retry.status) \(retry.text)")
        #expect(try spends(account) == "1", "charged exactly once")
    }

    @Test func aStreamEndsWithItsRetryHintAndResumesElsewhereWithNothingMissedOrRepeated() throws {
        let application = try server(grace: 2)
        let client = Transport.socket.client
        let (phone, iPad) = try client.registerOnTwoDevices("drain")
        let stream = try EventStreamClient(port: application.server.port, target: "/events", token: iPad.token)
        #expect(stream.status == 200)
        #expect(eventually { application.streams.count(of: iPad.id) == 1 })
        let change = #"{"settings":{"show_tip_on_timer":false}}"#
        #expect(try client.send("PATCH", "/me", token: phone.token, json: change).status == 200)
        let first = try #require(try next(stream, type: "settings.changed"), "the first change arrives")

        let report = application.stop()
        #expect(report.streams == 1)
        while try stream.next(timeout: 5) != nil {}
        #expect(stream.ended, "the stream is closed")
        let retry = try #require(stream.retry)
        #expect(retry < EventStreams.retrySpread, "the hint replaced the first retry: 2000")
        let resumeAt = try #require(stream.lastEventID.flatMap { Int($0) })
        #expect(resumeAt >= Int(first.id ?? "") ?? .max, "the hint's id is at or past the last event delivered")

        // The next change happens while the phone reconnects; its stream on another server
        // resumes by Last-Event-ID: the second change, not the first again.
        #expect(try client.send("PATCH", "/me", token: phone.token, json: #"{"settings":{"show_tip_on_timer":true}}"#).status == 200)
        let resumed = try EventStreamClient(
            port: TestServer.client().port, target: "/events", token: iPad.token, headers: ["Last-Event-ID": String(resumeAt)])
        let second = try #require(try next(resumed, type: "settings.changed"), "the second change arrives")
        #expect(second.id != first.id)
    }

    @Test func aStreamAskedForWhileTheServerStopsGetsOnlyItsRetryHintNotA503() throws {
        let application = try server(grace: 1)
        let account = try Transport.socket.client.register("drain")
        application.streams.closeAll()  // as the stop does when the listener closes
        let stream = try EventStreamClient(port: application.server.port, target: "/events", token: account.token)
        #expect(stream.status == 200, "an EventSource gives up for good on a 503")
        #expect(stream.headers["content-type"] == "text/event-stream")
        #expect(try stream.next(timeout: 5) == nil && stream.ended, "no event, then the close")
        #expect((stream.retry ?? .max) < EventStreams.retrySpread)
        #expect(stream.lastEventID.flatMap { Int($0) } != nil, "where to resume: the cursor it would have started from")
        application.stop()
    }

    @Test func aWaitingLongPollAnswersAtOnceWithRetryAfter() throws {
        let application = try server(grace: 2)
        let account = try Transport.socket.client.register("drain")
        let port = application.server.port
        let token = ["Authorization": "Bearer \(account.token)"]
        var after = try #require(try HTTPClient(port: port).send("GET", "/events", headers: token).json["next"] as? Int)
        // A broadcast from another test may answer the long-poll before the stop: then it waits again.
        var waiting: (results: ResultBox<HTTPResult>, done: DispatchGroup)?
        for _ in 1...3 where waiting == nil {
            let poll = inBackground { [after] _ in
                try HTTPClient(port: port).send("GET", "/events?after=\(after)&wait=30", headers: token)
            }
            _ = eventually { application.streams.count(of: account.id) == 1 || poll.done.wait(timeout: .now()) == .success }
            if poll.done.wait(timeout: .now()) == .success {
                after = try #require(try poll.results.values.first??.get().json["next"] as? Int)
            } else {
                waiting = poll
            }
        }
        let (polls, polled) = try #require(waiting, "the long-poll waits")
        let report = application.stop()
        #expect(report.polls == 1)
        #expect(polled.wait(timeout: .now() + 5) == .success, "answered long before its 30 s")
        let answer = try #require(try polls.values.first??.get())
        #expect(answer.status == 200 && answer.json["events"] != nil)
        #expect(answer.header("Retry-After") == "1")
        #expect(answer.header("Connection")?.lowercased() == "close")
    }

    @Test func anIdleKeptAliveConnectionIsClosedWhenTheListenerCloses() throws {
        let application = try server(grace: 1)
        let connection = try KeptAlive(port: application.server.port)
        let first = try connection.get("/health")
        #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
        #expect(!first.lowercased().contains("connection: close"), "kept alive before the stop")
        let report = application.stop()
        #expect(report.idle == 1)
        #expect(connection.closedWithin(seconds: 2), "the server closed the idle connection")
    }

    /// The stream's next event of `type` within 10 s (others, broadcasts included, are skipped).
    func next(_ stream: EventStreamClient, type: String) throws -> ServerSentEvent? {
        let deadline = Date().addingTimeInterval(10)
        while let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if event.type == type { return event }
        }
        return nil
    }
}

@Suite struct DrainConfigurationTests {
    @Test func stopGraceAndDrainDelayHaveTheirDefaultsAndABadValueNamesTheVariable() throws {
        let defaults = try Configuration(environment: [:])
        #expect(defaults.stopGrace == 10 && defaults.drainDelay == 0)
        let set = try Configuration(environment: ["STOP_GRACE": "2.5", "DRAIN_DELAY": "6"])
        #expect(set.stopGrace == 2.5 && set.drainDelay == 6)
        for (name, value) in [("STOP_GRACE", "-1"), ("STOP_GRACE", "ten"), ("DRAIN_DELAY", "3601")] {
            do {
                _ = try Configuration(environment: [name: value])
                Issue.record("\(name)=\(value) was taken")
            } catch {
                #expect(error.variable == name)
            }
        }
    }
}

/// A transaction of the owner's that holds a user's row (api.lock_user waits for it) until released.
final class RowLock {
    private let connection: PGConnection
    private let pid: String

    init(user: String) throws {
        connection = try TestEnvironment.owner()
        pid = (try connection.execute("select pg_backend_pid()::text").first?.first ?? nil) ?? ""
        _ = try connection.execute("begin")
        _ = try connection.execute("select from app.users where id = $1 for update", [user])
    }

    /// Sessions waiting for this transaction's locks.
    func waiters() throws -> Int {
        let count = try TestEnvironment.scalar(
            "select count(*)::text from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))", [pid])
        return Int(count ?? "") ?? 0
    }

    func release() throws { _ = try connection.execute("commit") }
}

/// One kept-alive HTTP/1.1 connection: requests without `Connection: close`, answers read by
/// their Content-Length, and a look at whether the server closed it.
final class KeptAlive {
    private let fd: Int32

    init(port: UInt16) throws {
        fd = try loopbackSocket(port: port)
    }

    deinit { close(fd) }

    /// The answer's head and body as text.
    func get(_ path: String) throws -> String {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = answer.indices.first(where: { answer[$0...].starts(with: separator) }) {
                let head = String(decoding: answer[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if answer.count >= end + 4 + length { return String(decoding: answer, as: UTF8.self) }
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 5_000) > 0 else { throw HTTPClientError(description: "no answer within 5 s") }
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw HTTPClientError(description: "closed before the answer") }
            answer += buffer[0..<n]
        }
    }

    /// Whether the server closes the connection (a read of end-of-file) within `seconds`.
    func closedWithin(seconds: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) <= 0
    }
}

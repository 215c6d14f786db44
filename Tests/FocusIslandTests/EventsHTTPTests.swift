import Foundation
import Testing

// GET /events end to end: SSE streams over the socket (only a socket can hold one), long-polls
// in-process and over the socket, and the bad input list. Broadcast events (catalog.changed,
// tips.changed, config.changed) may come from other tests' re-seeds at any time, so checks on one user's
// events look at that user's own ones (`personal`).
@testable import FocusIsland

@Suite struct EventsHTTPTests {
    static let broadcastTypes: Set<String?> = ["catalog.changed", "tips.changed", "config.changed"]

    func stream(_ account: Account?, headers: [String: String] = [:], target: String = "/events") throws -> EventStreamClient {
        try EventStreamClient(port: TestServer.client().port, target: target, token: account?.token, headers: headers)
    }

    func personal(_ events: [ServerSentEvent]) -> [ServerSentEvent] {
        events.filter { !Self.broadcastTypes.contains($0.type) }
    }

    /// The next event of the account's own within `timeout` seconds.
    func nextPersonal(_ stream: EventStreamClient, timeout: Double = 5) throws -> ServerSentEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if !Self.broadcastTypes.contains(event.type) { return event }
        }
        return nil
    }

    func grant(_ account: Account, _ coins: Int) throws {
        _ = try TestEnvironment.owner().execute(
            "select app.grant_coins($1::uuid, $2::integer, 'events test')",
            [account.id, String(coins)])
    }

    func eventCount(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select count(*) from app.events where user_id = $1::uuid", [account.id])
    }

    /// A long-poll's events, own ones only, as JSON objects.
    func personalEvents(_ result: HTTPResult) -> [[String: Any]] {
        ((result.json["events"] as? [[String: Any]]) ?? []).filter { !Self.broadcastTypes.contains($0["type"] as? String) }
    }

    @Test func aStreamShowsAFriendRequestToItsUserAndToNoOneElse() throws {
        let client = Transport.socket.client
        let a = try client.register("ann"), b = try client.register("ben"), c = try client.register("cid")
        let streamA = try stream(a), streamC = try stream(c)
        #expect(streamA.status == 200)
        #expect(streamA.headers["content-type"] == "text/event-stream")
        #expect(streamA.headers["cache-control"] == "no-store")

        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let requestID = try asked.decode(AskReply.self).request.id
        let event = try #require(try nextPersonal(streamA), "A's stream shows nothing within 5 s")
        #expect(event.type == "friend_request.received")
        #expect((event.json["data"] as? [String: Any])?["request_id"] as? String == requestID)
        #expect(event.id == (event.json["id"] as? NSNumber)?.stringValue, "the SSE id is the event's cursor")
        #expect(personal(try streamC.events(for: 0.5)).isEmpty, "a third user's stream shows none of A's or B's events")
    }

    @Test func aReconnectWithLastEventIDGetsExactlyTheMissedEventsInOrderOnce() throws {
        let client = Transport.socket.client
        let a = try client.register("ann"), b = try client.register("ben")
        let first = try stream(a)
        _ = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let seen = try #require(try nextPersonal(first))
        let cursor = try #require(seen.id)
        first.close()

        try grant(a, 3)
        try grant(a, 4)
        let resumed = try stream(a, headers: ["Last-Event-ID": cursor])
        #expect(resumed.status == 200)
        var missed: [ServerSentEvent] = []
        while missed.count < 2, let event = try nextPersonal(resumed) { missed.append(event) }
        #expect(missed.map(\.type) == ["balance.changed", "balance.changed"])
        #expect(missed.map { ($0.json["data"] as? [String: Any])?["balance"] as? Int } == [3, 7])
        let ids = missed.compactMap { $0.id.flatMap { Int64($0) } }
        #expect(ids.count == 2 && ids[0] > Int64(cursor)! && ids[1] > ids[0], "in order, after the cursor")

        // Live again after the resume, and nothing twice.
        try grant(a, 5)
        let live = try #require(try nextPersonal(resumed))
        #expect((live.json["data"] as? [String: Any])?["balance"] as? Int == 12)
        #expect(personal(try resumed.events(for: 0.3)).isEmpty, "no event is delivered twice")

        // ?after= resumes the same way, and the long-poll path returns the same events.
        let byQuery = try stream(a, target: "/events?after=\(cursor)")
        var again: [ServerSentEvent] = []
        while again.count < 3, let event = try nextPersonal(byQuery) { again.append(event) }
        #expect(again == missed + [live])
        for transport in Transport.allCases {
            let polled = try transport.client.send("GET", "/events?after=\(cursor)", token: a.token)
            #expect(polled.status == 200)
            let expected = (missed + [live]).map { $0.json as NSDictionary }
            #expect(personalEvents(polled).map { $0 as NSDictionary } == expected, "\(transport): the same events")
        }
    }

    @Test func aStreamEndsWhenItsTokenIsRevoked() throws {
        let client = Transport.socket.client
        let a = try client.register("ann")
        let open = try stream(a)
        #expect(open.status == 200)
        #expect(try client.send("POST", "/auth/logout", token: a.token).status == 204)
        try grant(a, 1)  // wakes the stream, whose next query no longer signs in
        let deadline = Date().addingTimeInterval(5)
        while !open.ended, Date() < deadline { _ = try open.next(timeout: 0.5) }
        #expect(open.ended, "the server ended the stream of a revoked token")
    }

    /// Waits until each stream ended (the server closed it) or `seconds` passed.
    func waitForEnds(_ streams: [EventStreamClient], within seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        for held in streams {
            while !held.ended, Date() < deadline { _ = try held.next(timeout: 0.5) }
        }
    }

    /// A token that ends (logout, a device revoked, a password change, the account deleted)
    /// ends every stream on it within a heartbeat, without any event to wake them (the token's
    /// end rings the user's clients), and their places under max_streams_per_user are free.
    @Test(arguments: ["logout", "revoke", "password", "delete"])
    func everyStreamOfAnEndedTokenEndsAndFreesItsPlaces(ending: String) throws {
        let client = Transport.socket.client
        let a = try client.register("ender")
        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(a.email)","password":"correct horse"}"#)
        let second = Account(id: a.id, email: a.email, token: try #require(login.json["token"] as? String))
        let limit = try #require(Int(try TestEnvironment.scalar("select max_streams_per_user from app.event_settings") ?? ""))
        let open = try (0..<limit).map { _ in try stream(a) }
        #expect(open.allSatisfy { $0.status == 200 })
        let eventsBefore = try eventCount(a)

        let ended: HTTPResult
        switch ending {
        case "logout":
            ended = try client.send("POST", "/auth/logout", token: a.token)
        case "revoke":
            let tokens = try client.send("GET", "/me/tokens", token: second.token).json["tokens"] as? [[String: Any]] ?? []
            let first = try #require(tokens.first { $0["current"] as? Bool == false }?["id"] as? String)
            ended = try client.send("DELETE", "/me/tokens/\(first)", token: second.token)
        case "password":
            ended = try client.send(
                "POST", "/me/password", token: second.token,
                json: #"{"current_password":"correct horse","new_password":"another horse"}"#)
        default:
            ended = try client.send("DELETE", "/me", token: a.token, json: #"{"password":"correct horse"}"#)
        }
        #expect(ended.status == 204, "\(ending): \(ended.text)")
        #expect(try eventCount(a) == eventsBefore, "no event of the user's woke the streams")

        let heartbeat = Double(try TestServer.running().streams.heartbeat)
        try waitForEnds(open, within: heartbeat + 5)
        #expect(open.allSatisfy { $0.ended }, "\(ending): every stream of the ended token ended")
        if ending != "delete" {
            let again = try (0..<limit).map { _ in try stream(second) }
            #expect(again.allSatisfy { $0.status == 200 }, "\(ending): the ended streams' places are free")
            for held in again { held.close() }
        }
    }

    /// A token that expires by time ends its stream at the first heartbeat after the expiry.
    @Test func aStreamEndsAtTheFirstHeartbeatAfterItsTokenExpires() throws {
        let a = try Transport.socket.client.register("expiring")
        _ = try TestEnvironment.owner().execute(
            "update app.auth_tokens set expires_at = greatest(created_at, now()) + interval '1 second' where user_id = $1::uuid",
            [a.id])
        let open = try stream(a)
        #expect(open.status == 200)
        let heartbeat = Double(try TestServer.running().streams.heartbeat)
        try waitForEnds([open], within: 2 * heartbeat + 5)
        #expect(open.ended, "the stream of an expired token ended")
    }

    /// A waiting long-poll answers 401 when its token ends, instead of its empty list after `wait`.
    @Test func aWaitingLongPollAnswers401WhenItsTokenEnds() throws {
        let client = Transport.socket.client
        let a = try client.register("pollend")
        let next = try #require(client.send("GET", "/events", token: a.token).json["next"] as? Int)
        let streams = try TestServer.running().streams
        let (answer, done) = inBackground { _ in
            try client.send("GET", "/events?after=\(next)&wait=60", token: a.token)
        }
        let registered = Date().addingTimeInterval(5)
        while streams.count(of: a.id) < 1 && Date() < registered { usleep(20_000) }
        #expect(streams.count(of: a.id) == 1, "the long-poll waits")
        #expect(try client.send("POST", "/auth/logout", token: a.token).status == 204)
        #expect(done.wait(timeout: .now() + 20) == .success, "the long-poll answered once its token ended")
        let result = try #require(try answer.values[0]?.get())
        #expect(result.status == 401 && result.code == "unauthorized")
        #expect(streams.count(of: a.id) == 0, "and its place is free")
    }

    /// Waiting long-polls are bounded per user like streams (app.event_settings.max_polls_per_user):
    /// past it, 429 too_many_polls as problem+json with Retry-After; an answered one frees its place.
    @Test func waitingLongPollsAreBoundedPerUser() throws {
        let client = Transport.socket.client
        let a = try client.register("poller")
        let limit = try #require(Int(try TestEnvironment.scalar("select max_polls_per_user from app.event_settings") ?? ""))
        let next = try #require(client.send("GET", "/events", token: a.token).json["next"] as? Int)
        let streams = try TestServer.running().streams
        let (results, done) = inBackground(limit) { _ in
            try client.send("GET", "/events?after=\(next)&wait=30", token: a.token)
        }
        let registered = Date().addingTimeInterval(5)
        while streams.count(of: a.id) < limit && Date() < registered { usleep(20_000) }
        #expect(streams.count(of: a.id) == limit, "\(limit) long-polls wait")

        let refused = try client.send("GET", "/events?after=\(next)&wait=30", token: a.token)
        #expect(refused.status == 429)
        #expect(refused.code == "too_many_polls")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.header("Retry-After") != nil)
        #expect(try client.send("GET", "/events?after=\(next)", token: a.token).status == 200, "a poll that does not wait is not counted")
        let other = try client.register("poller")
        #expect(try client.send("GET", "/events?after=\(next)&wait=0", token: other.token).status == 200, "nor another user's")

        try grant(a, 2)  // answers the waiting ones
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.values.allSatisfy { (try? $0?.get())?.status == 200 })
        #expect(streams.count(of: a.id) == 0, "answered long-polls free their places")
    }

    @Test func aLongPollAnswersWhenAnEventArrivesWithoutHoldingAThread() throws {
        let client = Transport.socket.client
        // Four users, as each may hold only max_polls_per_user (5) waiting long-polls.
        let users = try (0..<4).map { _ in try client.register("ann") }
        let start = try #require(client.send("GET", "/events", token: users[0].token).json["next"] as? Int)

        // More waiting long-polls than the server has HTTP threads.
        let waiting = 2 * 8
        let (results, done) = inBackground(waiting) { index in
            try client.send("GET", "/events?after=\(start)&wait=20", token: users[index % users.count].token)
        }
        let streams = try TestServer.running().streams
        let registered = Date().addingTimeInterval(5)
        while streams.count < waiting && Date() < registered { usleep(20_000) }
        #expect(streams.count >= waiting, "every long-poll waits")
        let health = monotonicMicroseconds()
        #expect(try client.send("GET", "/health").status == 200)
        #expect(monotonicMicroseconds() - health < 1_000_000, "waiting long-polls hold no HTTP thread")

        for user in users { try grant(user, 9) }
        #expect(done.wait(timeout: .now() + 10) == .success, "every long-poll answered after the event")
        for result in results.values.compactMap({ try? $0?.get() }) {
            #expect(result.status == 200)
            // A broadcast from another test may answer first; then `next` moved past `start`.
            let events = (result.json["events"] as? [[String: Any]]) ?? []
            #expect(!events.isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func aLongPollWithNothingNewAnswersAnEmptyListAfterItsWait(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("ann")
        let next = try #require(client.send("GET", "/events", token: a.token).json["next"] as? Int)
        let started = monotonicMicroseconds()
        let result = try client.send("GET", "/events?after=\(next)&wait=1", token: a.token)
        let took = monotonicMicroseconds() - started
        #expect(result.status == 200)
        #expect(personalEvents(result).isEmpty)
        #expect(result.json["next"] as? Int ?? 0 >= next)
        // In process the pipeline answers at once; the server waits (unless a broadcast came).
        if transport == .socket && (result.json["events"] as? [Any])?.isEmpty == true {
            #expect(took >= 900_000, "waited \(took) µs")
        }
    }

    @Test(arguments: Transport.allCases)
    func badLongPollInputIsAProblemAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("ann")
        let before = try eventCount(a)
        for (target, token, status, code) in [
            ("/events?after=-1", a.token, 400, "invalid_field"),
            ("/events?after=abc", a.token, 400, "invalid_field"),
            ("/events?after=999999999999", a.token, 400, "invalid_field"),  // an id not given yet
            ("/events?after=0&wait=100000", a.token, 400, "invalid_field"),
            ("/events?after=0&wait=-1", a.token, 400, "invalid_field"),
            ("/events?after=0", nil, 401, "unauthorized"),
            ("/events?after=0", "not-a-token", 401, "unauthorized"),
        ] as [(String, String?, Int, String)] {
            let result = try client.send("GET", target, token: token)
            #expect(result.status == status, "\(target)")
            #expect(result.code == code, "\(target)")
            #expect(result.header("Content-Type") == "application/problem+json")
        }
        #expect(try eventCount(a) == before)
    }

    @Test func badStreamInputIsAProblemAndOpensNoStream() throws {
        let a = try Transport.socket.client.register("ann")
        let streams = try TestServer.running().streams
        for (headers, token, status, code) in [
            (["Last-Event-ID": "abc"], a as Account?, 400, "invalid_field"),
            (["Last-Event-ID": "-1"], a, 400, "invalid_field"),
            (["Last-Event-ID": "999999999999"], a, 400, "invalid_field"),
            ([:], nil, 401, "unauthorized"),
        ] as [([String: String], Account?, Int, String)] {
            let refused = try stream(token, headers: headers)
            #expect(refused.status == status, "\(headers)")
            #expect(refused.problemCode == code, "\(headers)")
            #expect(refused.headers["content-type"] == "application/problem+json")
        }
        // More streams than allowed: the limit is a row in app.event_settings.
        let limit = try #require(Int(try TestEnvironment.scalar("select max_streams_per_user from app.event_settings") ?? ""))
        let open = try (0..<limit).map { _ in try stream(a) }
        #expect(open.allSatisfy { $0.status == 200 })
        let refused = try stream(a)
        #expect(refused.status == 429)
        #expect(refused.problemCode == "too_many_streams")
        #expect(streams.count >= limit)
        for stream in open { stream.close() }
    }

    /// A stream's socket is held by a writer thread once its headers are out
    /// (Live/StreamWriters.swift), which watches it for a hang-up: a phone that drops a stream
    /// gets its place back at once, not at the next heartbeat (15 s), and the body is plain
    /// SSE text ended by the close.
    @Test func aDroppedStreamFreesItsPlaceAtOnce() throws {
        let a = try Transport.socket.client.register("ann")
        let limit = try #require(Int(try TestEnvironment.scalar("select max_streams_per_user from app.event_settings") ?? ""))
        let open = try (0..<limit).map { _ in try stream(a) }
        #expect(open.allSatisfy { $0.status == 200 && $0.headers["transfer-encoding"] == nil })
        #expect(open.allSatisfy { $0.headers["connection"]?.lowercased() == "close" })
        open[0].close()
        var reopened: EventStreamClient?
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            let attempt = try stream(a)
            if attempt.status == 200 {
                reopened = attempt
                break
            }
            #expect(attempt.status == 429)
            usleep(50_000)
        }
        let replacement = try #require(reopened, "the dropped stream's place was not freed within 3 s")
        try grant(a, 3)
        #expect(try nextPersonal(replacement)?.type == "balance.changed", "the new stream delivers")
        #expect(try nextPersonal(open[1])?.type == "balance.changed", "the other streams still deliver")
        for held in open.dropFirst() { held.close() }
        replacement.close()
    }
}

@Suite struct SharedCacheTests {
    func reply(_ text: String) -> Reply {
        Reply(row: ["200", text, "v1", nil, nil, nil, nil], kind: .json)!
    }

    @Test func keepsNothingWithoutAListener() {
        let cache = SharedCache()
        guard case .off = cache.lookup("k") else {
            Issue.record("a cache with no listener answered")
            return
        }
        cache.store("k", reply("{}"), generation: 0)
        #expect(cache.count == 0)
    }

    @Test func answersFromMemoryUntilABroadcast() {
        let cache = SharedCache()
        cache.setListening(true)
        guard case .miss(let generation) = cache.lookup("k") else {
            Issue.record("expected a miss")
            return
        }
        cache.store("k", reply("{\"a\":1}"), generation: generation)
        guard case .hit(let kept) = cache.lookup("k") else {
            Issue.record("expected a hit")
            return
        }
        #expect(kept.body == Array("{\"a\":1}".utf8))
        cache.invalidate()
        guard case .miss = cache.lookup("k") else {
            Issue.record("a broadcast left the entry")
            return
        }
    }

    /// The catalog is one entry for every client: the address and user agent the server adds to
    /// a statement's params are not part of the key (they once were: a cache per client).
    @Test func theCatalogIsKeptOnceForEveryClient() throws {
        let cache = SharedCache()
        cache.setListening(true)
        let pipeline = try TestServer.pipeline().with(cache: cache)
        for (address, agent) in [("192.0.2.1", "app/1"), ("192.0.2.2", "app/2"), ("2001:db8::3", "curl/8")] {
            var request = Request(method: "GET", path: "/shop/items", headers: ["User-Agent": agent])
            request.clientAddress = address
            #expect(pipeline.respond(to: request).status == 200)
        }
        #expect(cache.count == 1)
    }

    /// A catalog request that sends nothing but its Accept-Language is answered by the whole
    /// response kept for that header: the same status, body and headers as the statement made,
    /// its 304 as the statement's own 304, one kept answer per language, gone with a broadcast.
    @Test func theCatalogAskedAgainIsTheWholeAnswerKeptForItsLanguage() throws {
        let cache = SharedCache()
        cache.setListening(true)
        let pipeline = try TestServer.pipeline().with(cache: cache)
        func ask(_ headers: [String: String] = [:]) -> Response {
            pipeline.respond(to: Request(method: "GET", path: "/shop/items", headers: headers))
        }
        let shown = ["Content-Type", "ETag", "Cache-Control", "Vary", "Content-Language"]
        func same(_ a: Response, _ b: Response) {
            #expect(a.status == b.status)
            #expect(a.body == b.body)
            for name in shown { #expect(a.header(name) == b.header(name), "\(name)") }
        }
        // The first 304 is the statement's (nothing kept yet); the 200 then keeps the whole answer.
        let tag = try #require(ask().header("ETag"))
        cache.invalidate()
        let statementsNotModified = ask(["If-None-Match": tag])
        #expect(statementsNotModified.status == 304)
        let statements = ask()
        #expect(cache.preparedCount == 1)
        let kept = ask()
        same(kept, statements)
        let keptNotModified = ask(["If-None-Match": tag])
        same(keptNotModified, statementsNotModified)
        #expect(keptNotModified.body.isEmpty && keptNotModified.header("Content-Type") == nil)
        // Another tag (an older copy, a malformed one) is answered the whole 200.
        same(ask(["If-None-Match": "\"older\""]), statements)
        same(ask(["If-None-Match": "not a tag"]), statements)
        // Another Accept-Language is another answer, with its own Content-Language.
        let spanish = ask(["Accept-Language": "es"])
        #expect(spanish.status == 200)
        _ = ask(["Accept-Language": "es"])
        #expect(cache.preparedCount == 2)
        #expect(ask(["Accept-Language": "es"]).header("Content-Language") == spanish.header("Content-Language"))
        // A query is read by the function: never answered from a kept whole answer.
        _ = pipeline.respond(to: Request(method: "GET", path: "/shop/items", query: ["kind": "pet"]))
        #expect(cache.preparedCount == 2)
        cache.invalidate()
        #expect(cache.preparedCount == 0)
    }

    @Test func aReplyFetchedAcrossABroadcastIsNotKept() {
        let cache = SharedCache()
        cache.setListening(true)
        guard case .miss(let generation) = cache.lookup("k") else {
            Issue.record("expected a miss")
            return
        }
        cache.invalidate()  // the catalog changed while the reply was on its way
        cache.store("k", reply("{}"), generation: generation)
        #expect(cache.count == 0)
    }

    @Test func aLostListenerEmptiesTheCache() {
        let cache = SharedCache()
        cache.setListening(true)
        guard case .miss(let generation) = cache.lookup("k") else {
            Issue.record("expected a miss")
            return
        }
        cache.store("k", reply("{}"), generation: generation)
        cache.setListening(false)
        #expect(cache.count == 0)
        cache.setListening(true)
        guard case .miss = cache.lookup("k") else {
            Issue.record("a reconnect kept an entry")
            return
        }
    }
}

// Achievements end to end: a session unlocks one, its answer says so, and a friend's stream
// shows it; GET /me/achievements with progress; a friend's list and who may not read it;
// concurrent sessions that all qualify grant and pay once; a replayed finish answers the same.
// Every time comes from the database's clock, never from Date().
import Foundation
import Testing

@Suite struct AchievementsHTTPTests {
    /// Makes `a` and `b` friends: b asks, a accepts.
    func befriend(_ client: Client, _ a: Account, _ b: Account) throws {
        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let id = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        let accepted = try client.send("POST", "/friend-requests/\(id)/accept", token: a.token)
        #expect(accepted.status == 200)
        #expect(codes(accepted) == ["first_friend"], "the accepter's answer says first_friend unlocked")
    }

    /// An offline session's body: `minutes` long, ending `endsAgo` seconds before the database's now.
    func offline(_ id: String = UUID().uuidString, endsAgo: Double, minutes: Double) throws -> String {
        let end = try TestEnvironment.databaseNow() - endsAgo
        return #"{"id":"\#(id)","started_at":"\#((end - minutes * 60).rfc3339)","ended_at":"\#(end.rfc3339)"}"#
    }

    func codes(_ result: HTTPResult) -> [String]? {
        (result.json["achievements_unlocked"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
    }

    func rewards(_ account: Account, _ code: String) throws -> String? {
        try TestEnvironment.scalar(
            "select count(*) || ' ' || coalesce(sum(amount), 0) from app.coin_ledger where user_id = $1::uuid and entry = 'reward' "
                + "and achievement_code = $2", [account.id, code])
    }

    /// The next achievement.unlocked event on the stream naming `code`, as '<user> <code>'; others skipped.
    func unlocked(_ stream: EventStreamClient, _ code: String) throws -> String? {
        let deadline = Date().addingTimeInterval(10)
        while let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            guard event.type == "achievement.unlocked", let data = event.json["data"] as? [String: Any],
                data["code"] as? String == code
            else { continue }
            return "\(data["user_id"] as? String ?? "") \(code)"
        }
        return nil
    }

    /// A session unlocks first_session: the answer of the upload that did it says so (with the
    /// balance counting the reward), ann's other device and her friend bob see it on their streams,
    /// and the reward is one ledger row.
    @Test func aSessionUnlocksAnAchievementInItsAnswerAndOnAFriendsStream() throws {
        let client = Transport.socket.client
        let ann = try client.register("ann"), bob = try client.register("bob")
        try befriend(client, ann, bob)
        let bobStream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: bob.token, headers: [:])
        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(ann.email)","password":"correct horse"}"#)
        let annOtherDevice = try #require(login.json["token"] as? String, "login: \(login.status)")
        let annStream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: annOtherDevice, headers: [:])

        let recorded = try client.send("POST", "/focus-sessions", token: ann.token, json: try offline(endsAgo: 60, minutes: 30))
        #expect(recorded.status == 201, "\(recorded.text)")
        let unlockedNow = recorded.json["achievements_unlocked"] as? [[String: Any]] ?? []
        #expect(unlockedNow.map { $0["code"] as? String } == ["first_session"])
        #expect(unlockedNow.first?["reward_coins"] as? Int == 10 && unlockedNow.first?["unlocked_at"] is String)
        #expect(recorded.json["balance"] as? Int == 10 + 30 + 10, "first_friend's 10, the session's 30, first_session's 10")
        #expect(try unlocked(bobStream, "first_session") == "\(ann.id) first_session", "bob's stream shows ann's")
        #expect(try unlocked(annStream, "first_session") == "\(ann.id) first_session", "and ann's other devices")
        #expect(try rewards(ann, "first_session") == "1 10")

        let again = try client.send("POST", "/focus-sessions", token: ann.token, json: try offline(endsAgo: 7200, minutes: 20))
        #expect(again.status == 201 && codes(again) == [], "a second session unlocks nothing")
        #expect(try rewards(ann, "first_session") == "1 10", "and pays nothing")
    }

    /// GET /me/achievements: each active achievement with current, target and unlocked_at.
    @Test(arguments: Transport.allCases)
    func progressIsListed(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("progress")
        #expect(try client.send("POST", "/focus-sessions", token: ann.token, json: try offline(endsAgo: 60, minutes: 45)).status == 201)
        let listed = try client.send("GET", "/me/achievements", token: ann.token)
        #expect(listed.status == 200)
        let byCode = Dictionary(
            uniqueKeysWithValues: (listed.json["achievements"] as? [[String: Any]] ?? []).compactMap { a in
                (a["code"] as? String).map { ($0, a) }
            })
        #expect(byCode["first_session"]?["current"] as? Int == 1 && byCode["first_session"]?["target"] as? Int == 1)
        #expect(byCode["first_session"]?["unlocked_at"] is String)
        #expect(byCode["ten_hours"]?["current"] as? Int == 45 && byCode["ten_hours"]?["target"] as? Int == 600)
        #expect(byCode["ten_hours"]?["unlocked_at"] is NSNull, "locked: unlocked_at is null")
        #expect(byCode["first_friend"]?["current"] as? Int == 0)
        #expect(try client.send("GET", "/me/achievements").status == 401)
        #expect(try client.send("GET", "/me/achievements", token: "not-a-token").status == 401)
    }

    /// A friend's unlocked achievements; a stranger, an unknown id, a malformed id, no token,
    /// an expired token and a blocked friend are refused, and nothing changes.
    @Test(arguments: Transport.allCases)
    func friendsSeeEachOthersAndNobodyElse(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("ann"), bob = try client.register("bob"), eve = try client.register("eve")
        try befriend(client, ann, bob)
        let seen = try client.send("GET", "/users/\(ann.id)/achievements", token: bob.token)
        #expect(seen.status == 200)
        #expect(seen.json["user_id"] as? String == ann.id)
        #expect((seen.json["achievements"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["first_friend"])
        #expect((seen.json["achievements"] as? [[String: Any]])?.first?["current"] == nil, "no progress for friends")

        let theirs =
            "select count(*) || ' ' || (select balance from app.users where id = $1::uuid) from app.user_achievements "
            + "where user_id in ($1::uuid, $2::uuid, $3::uuid)"
        let before = try TestEnvironment.scalar(theirs, [ann.id, bob.id, eve.id])
        let stranger = try client.send("GET", "/users/\(ann.id)/achievements", token: eve.token)
        #expect(stranger.status == 404 && stranger.code == "user_not_found")
        #expect(try client.send("GET", "/users/\(UUID().uuidString)/achievements", token: bob.token).code == "user_not_found")
        let malformed = try client.send("GET", "/users/not-an-id/achievements", token: bob.token)
        #expect(malformed.status == 400 && malformed.code == "invalid_field")
        #expect(try client.send("GET", "/users/\(ann.id)/achievements").status == 401)
        #expect(try TestEnvironment.scalar(theirs, [ann.id, bob.id, eve.id]) == before, "the refusals changed nothing")

        #expect(try client.send("POST", "/users/\(bob.id)/block", token: ann.token).status == 204)
        #expect(try client.send("GET", "/users/\(ann.id)/achievements", token: bob.token).code == "user_not_found", "blocked: 404")
        #expect(try client.send("GET", "/users/\(bob.id)/achievements", token: ann.token).code == "user_not_found", "either way")

        try TestEnvironment.owner().execute(
            "update app.auth_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day' "
                + "where digest = sha256(convert_to($1, 'UTF8'))", [eve.token])
        #expect(try client.send("GET", "/me/achievements", token: eve.token).status == 401, "an expired token")
    }

    /// Eight sessions uploaded at once, each enough for first_session: it is granted once, in
    /// exactly one answer, paid once, and the ledger still adds up to the balance.
    @Test(arguments: Transport.allCases)
    func concurrentQualifyingWritesGrantAndPayOnce(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("racer")
        let bodies = try (0..<8).map { try offline(endsAgo: Double($0) * 1800 + 60, minutes: 20) }
        let results = try concurrently(8) { index in
            try client.send("POST", "/focus-sessions", token: ann.token, json: bodies[index])
        }
        #expect(results.allSatisfy { $0.status == 201 }, "\(results.map(\.status))")
        #expect(results.filter { codes($0) == ["first_session"] }.count == 1)
        #expect(results.filter { codes($0) == [] }.count == 7)
        #expect(try rewards(ann, "first_session") == "1 10")
        #expect(try TestEnvironment.scalar("select count(*) from app.user_achievements where user_id = $1::uuid", [ann.id]) == "1")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
    }

    /// A finish replayed with its Idempotency-Key answers the first answer, achievements included;
    /// a finish of an ended session (a repeat that did nothing) leaves the member out.
    @Test func aReplayedFinishAnswersTheSameAndARepeatUnlocksNothing() throws {
        let client = Transport.socket.client
        let ann = try client.register("replay")
        let started = try client.send("POST", "/focus-sessions/start", token: ann.token, json: #"{"planned_minutes":25}"#)
        let id = (started.json["session"] as? [String: Any])?["id"] as? String ?? ""
        try TestEnvironment.owner().execute(
            "update app.focus_sessions set started_at = started_at - interval '30 minutes', "
                + "occupies = tstzrange(lower(occupies) - interval '30 minutes', upper(occupies) - interval '30 minutes') where id = $1::uuid",
            [id])
        let key = ["Idempotency-Key": UUID().uuidString]
        let first = try client.send("POST", "/focus-sessions/\(id)/finish", token: ann.token, headers: key)
        #expect(first.status == 200 && codes(first) == ["first_session"])
        let replay = try client.send("POST", "/focus-sessions/\(id)/finish", token: ann.token, headers: key)
        #expect(replay.status == 200 && replay.text == first.text, "the replay is the first answer")
        let repeated = try client.send("POST", "/focus-sessions/\(id)/finish", token: ann.token)
        #expect(repeated.status == 200 && codes(repeated) == nil, "finishing again: no member")
        #expect(try rewards(ann, "first_session") == "1 10")
    }
}

// Achievements end to end: a session unlocks one, its answer says so, and a friend's stream
// shows it; GET /me/achievements with progress; a friend's list and who may not read it;
// concurrent sessions that all qualify grant and pay once; a repeated write (a finish, an upload,
// asking back, a purchase, a gift's accept) answers what its first answer said,
// achievements_unlocked included.
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

    /// A finish replayed with its Idempotency-Key, and finished again without one, answer the
    /// first answer byte for byte, achievements_unlocked included, even once the session was
    /// rated and the balance moved; nothing is paid twice (docs/achievements.md, 2026-12-06).
    @Test func aRepeatedFinishAnswersTheFirstAnswer() throws {
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
        #expect(replay.status == 200 && replay.text == first.text, "the key's replay is the first answer")
        let repeated = try client.send("POST", "/focus-sessions/\(id)/finish", token: ann.token)
        #expect(repeated.status == 200 && repeated.text == first.text, "finishing again without a key: the first answer too")
        let rated = try client.send("POST", "/focus-sessions/\(id)/rating", token: ann.token, json: #"{"rating":"good"}"#)
        #expect(rated.status == 200)
        try TestEnvironment.owner().execute("select app.grant_coins($1::uuid, 5, 'test')", [ann.id])
        let later = try client.send(
            "POST", "/focus-sessions/\(id)/finish", token: ann.token, json: #"{"ended_at":"\#(try TestEnvironment.databaseNow().rfc3339)"}"#
        )
        #expect(later.status == 200 && later.text == first.text, "rated and paid since, whatever ended_at says: the first answer")
        #expect(try rewards(ann, "first_session") == "1 10")
    }

    /// An offline session uploaded again with its id (its answer lost) answers 200 with the
    /// first answer's body byte for byte, achievements_unlocked included; also after another
    /// session moved the balance; nothing is paid twice.
    @Test(arguments: Transport.allCases)
    func anOfflineSessionUploadedAgainAnswersTheFirstBody(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("upload")
        let body = try offline(endsAgo: 7200, minutes: 30)
        let first = try client.send("POST", "/focus-sessions", token: ann.token, json: body)
        #expect(first.status == 201 && codes(first) == ["first_session"], "\(first.text)")
        let again = try client.send("POST", "/focus-sessions", token: ann.token, json: body)
        #expect(again.status == 200 && again.text == first.text, "201 first, then 200 with the same body")
        #expect(try client.send("POST", "/focus-sessions", token: ann.token, json: try offline(endsAgo: 60, minutes: 20)).status == 201)
        let later = try client.send("POST", "/focus-sessions", token: ann.token, json: body)
        #expect(later.status == 200 && later.text == first.text, "the balance answered is the first one's")
        #expect(try rewards(ann, "first_session") == "1 10")
        #expect(try client.send("POST", "/focus-sessions", json: body).status == 401)
    }

    /// Accepting by asking back (POST /friend-requests to someone who had asked) unlocks
    /// first_friend; asking again answers the same 200 body; the one who had asked gets 409
    /// already_friends, as before.
    @Test(arguments: Transport.allCases)
    func askingBackAgainAnswersTheFirstAnswer(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("asker"), bob = try client.register("askback")
        #expect(try client.send("POST", "/friend-requests", token: ann.token, json: #"{"email":"\#(bob.email)"}"#).status == 201)
        let first = try client.send("POST", "/friend-requests", token: bob.token, json: #"{"email":"\#(ann.email)"}"#)
        #expect(first.status == 200 && first.json["auto_accepted"] as? Bool == true && codes(first) == ["first_friend"], "\(first.text)")
        let again = try client.send("POST", "/friend-requests", token: bob.token, json: #"{"email":"\#(ann.email)"}"#)
        #expect(again.status == 200 && again.text == first.text, "asking again: the first answer, first_friend included")
        let theirs = try client.send("POST", "/friend-requests", token: ann.token, json: #"{"email":"\#(bob.email)"}"#)
        #expect(theirs.status == 409 && theirs.code == "already_friends")
        #expect(try rewards(bob, "first_friend") == "1 10")
    }

    /// The purchase that completes the pets unlocks every_pet; buying the item again answers the
    /// documented repeat (200, already_owned, nothing charged) with the same achievements_unlocked.
    @Test(arguments: Transport.allCases)
    func buyingTheLastPetAgainNamesWhatItUnlocked(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("pets")
        try TestEnvironment.owner().execute("select app.grant_coins($1::uuid, 100000, 'test')", [ann.id])
        let missing =
            try TestEnvironment.scalar(
                "select string_agg(i.id::text, ' ' order by i.id) from app.shop_items i where i.kind = 'pet' and i.active "
                    + "and not exists (select from app.user_items ui where ui.user_id = $1::uuid and ui.item_id = i.id)", [ann.id]) ?? ""
        let pets = missing.split(separator: " ").map(String.init)
        try #require(!pets.isEmpty)
        for pet in pets.dropLast() {
            #expect(try client.send("POST", "/shop/purchases", token: ann.token, json: #"{"item_id":"\#(pet)"}"#).status == 201)
        }
        let last = #"{"item_id":"\#(pets[pets.count - 1])"}"#
        let first = try client.send("POST", "/shop/purchases", token: ann.token, json: last)
        #expect(first.status == 201 && codes(first) == ["every_pet"], "\(first.text)")
        let again = try client.send("POST", "/shop/purchases", token: ann.token, json: last)
        #expect(again.status == 200 && again.json["already_owned"] as? Bool == true)
        #expect(again.json["balance"] as? Int == first.json["balance"] as? Int, "nothing charged")
        #expect(
            again.json["achievements_unlocked"] as? NSArray == first.json["achievements_unlocked"] as? NSArray,
            "the same achievements_unlocked as the purchase answered")
        #expect(try rewards(ann, "every_pet") == "1 100")
    }

    /// A gift of the last pet: accepting it unlocks every_pet for the receiver, in the answer (her
    /// acting device hears no event of it) with the balance counting the reward; accepting again
    /// answers the first body byte for byte. A coin gift unlocks nothing: [], again too.
    @Test(arguments: Transport.allCases)
    func acceptingTheLastPetAsAGiftAgainAnswersTheFirstAnswer(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("giftpets"), bob = try client.register("petgiver")
        try befriend(client, ann, bob)
        for account in [ann, bob] {
            try TestEnvironment.owner().execute("select app.grant_coins($1::uuid, 100000, 'test')", [account.id])
        }
        let missing =
            try TestEnvironment.scalar(
                "select string_agg(i.id::text, ' ' order by i.price desc, i.id desc) from app.shop_items i where i.kind = 'pet' "
                    + "and i.active and not exists (select from app.user_items ui where ui.user_id = $1::uuid and ui.item_id = i.id)",
                [ann.id]) ?? ""
        let pets = missing.split(separator: " ").map(String.init)
        try #require(!pets.isEmpty)
        for pet in pets.dropLast() {
            #expect(try client.send("POST", "/shop/purchases", token: ann.token, json: #"{"item_id":"\#(pet)"}"#).status == 201)
        }
        let sent = try client.send("POST", "/gifts", token: bob.token, json: #"{"to":"\#(ann.id)","item_id":"\#(pets[pets.count - 1])"}"#)
        #expect(sent.status == 201, "\(sent.text)")
        let coins = try client.send("POST", "/gifts", token: bob.token, json: #"{"to":"\#(ann.id)","coins":5}"#)
        #expect(coins.status == 201, "\(coins.text)")
        let petGift = (sent.json["gift"] as? [String: Any])?["id"] as? String ?? ""
        let coinGift = (coins.json["gift"] as? [String: Any])?["id"] as? String ?? ""
        let before = try Int(TestEnvironment.scalar("select balance from app.users where id = $1::uuid", [ann.id]) ?? "") ?? -1

        let first = try client.send("POST", "/gifts/\(petGift)/accept", token: ann.token)
        #expect(first.status == 200 && codes(first) == ["every_pet"], "\(first.text)")
        #expect(first.json["balance"] as? Int == before + 100, "the balance counts every_pet's reward")
        let again = try client.send("POST", "/gifts/\(petGift)/accept", token: ann.token)
        #expect(again.status == 200 && again.text == first.text, "accepting again: the first answer, every_pet included")
        #expect(try rewards(ann, "every_pet") == "1 100")

        let coinFirst = try client.send("POST", "/gifts/\(coinGift)/accept", token: ann.token)
        #expect(coinFirst.status == 200 && codes(coinFirst) == [], "\(coinFirst.text)")
        let coinAgain = try client.send("POST", "/gifts/\(coinGift)/accept", token: ann.token)
        #expect(coinAgain.status == 200 && coinAgain.text == coinFirst.text)
    }
}

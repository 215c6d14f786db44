// What rooms, gifts and a block give away over HTTP (docs/rooms.md, docs/moderation.md,
// 2026-12-06): a stranger holding a real join code gets the very bytes an unknown code gets;
// joins that find no room are throttled per account (429 with Retry-After); a block parts the
// two in a waiting and a running room, never in one that ended; the blocked user keeps seeing
// the blocker's name as the block left it in GET /gifts/sent, /rooms and /rooms/{id}; a friend
// while suspended answers a gift and a room invitation exactly as an ex-friend.
import Foundation
import Testing

@Suite struct TrustHTTPTests {
    /// Makes `a` and `b` friends: b asks, a accepts.
    func befriend(_ client: Client, _ a: Account, _ b: Account) throws {
        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let id = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        #expect(try client.send("POST", "/friend-requests/\(id)/accept", token: a.token).status == 200)
    }

    func open(_ client: Client, _ host: Account) throws -> (id: String, code: String) {
        let opened = try client.send("POST", "/rooms", token: host.token, json: #"{"planned_minutes":25}"#)
        #expect(opened.status == 201, "\(opened.text)")
        let room = opened.json["room"] as? [String: Any] ?? [:]
        return (room["id"] as? String ?? "", room["code"] as? String ?? "")
    }

    func join(_ client: Client, _ account: Account, _ code: String) throws -> HTTPResult {
        try client.send("POST", "/rooms/\(code)/join", token: account.token)
    }

    func block(_ client: Client, _ blocker: Account, _ blocked: Account) throws {
        #expect(try client.send("POST", "/users/\(blocked.id)/block", token: blocker.token).status == 204)
    }

    /// Each member's state in the room, in the order of `accounts`.
    func states(_ roomID: String, _ accounts: [Account]) throws -> [String] {
        try accounts.map {
            try TestEnvironment.scalar(
                "select state from app.room_members where room_id = $1::uuid and user_id = $2::uuid", [roomID, $0.id]) ?? "-"
        }
    }

    /// The display name a list of members or gifts shows for `account`.
    func shownName(_ cards: [[String: Any]], _ account: Account) -> String? {
        cards.first { $0["id"] as? String == account.id }?["display_name"] as? String
    }

    func memberCards(_ room: [String: Any]) -> [[String: Any]] {
        (room["members"] as? [[String: Any]] ?? []).compactMap { $0["user"] as? [String: Any] }
    }

    @Test(arguments: Transport.allCases)
    func aStrangerWithARealCodeGetsTheBytesOfAnUnknownCode(transport: Transport) throws {
        let client = transport.client
        let host = try client.register("host"), friend = try client.register("friend"), stranger = try client.register("stranger")
        try befriend(client, host, friend)
        let (id, code) = try open(client, host)
        let unknown = try join(client, stranger, "ZZZZZZZZ")
        let real = try join(client, stranger, code)
        #expect(unknown.status == 404 && unknown.code == "room_not_found")
        #expect(real.status == unknown.status && real.body == unknown.body, "\(real.status) \(real.text) vs \(unknown.text)")
        #expect(real.header("Content-Type") == unknown.header("Content-Type"))

        // Started: still the same answer for the stranger (not 409 room_not_open).
        #expect(try join(client, friend, code).status == 200)
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        let started = try join(client, stranger, code)
        #expect(started.status == 404 && started.body == unknown.body, "\(started.status) \(started.text)")
    }

    @Test(arguments: Transport.allCases)
    func joinsThatFindNoRoomAreThrottledPerAccount(transport: Transport) throws {
        let client = transport.client
        let host = try client.register("host"), guesser = try client.register("guesser")
        try befriend(client, host, guesser)
        let (_, code) = try open(client, host)
        let limit = Int(try TestEnvironment.scalar("select max_join_failures from app.room_settings") ?? "") ?? 0
        let window =
            Int(try TestEnvironment.scalar("select extract(epoch from join_failure_window)::integer from app.room_settings") ?? "") ?? 0
        #expect(limit > 0 && window > 0)
        for attempt in 0..<limit {
            let guess = try join(client, guesser, "GUESS\(attempt)")
            #expect(guess.status == 404 && guess.code == "room_not_found", "guess \(attempt): \(guess.status) \(guess.text)")
        }
        let throttled = try join(client, guesser, code)
        #expect(throttled.status == 429 && throttled.code == "too_many_join_attempts", "\(throttled.status) \(throttled.text)")
        let retryAfter = Int(throttled.header("Retry-After") ?? "") ?? 0
        #expect(retryAfter > 0 && retryAfter <= window, "Retry-After \(retryAfter)")
        #expect(
            try TestEnvironment.scalar("select count(*) from app.room_members where user_id = $1::uuid", [guesser.id]) == "0",
            "the good code did not let the guesser in while throttled")

        // Once the failures leave the window, the friend joins.
        _ = try TestEnvironment.owner().execute(
            "update app.room_join_failures set failed_at = failed_at - (select join_failure_window from app.room_settings) "
                + "where user_id = $1::uuid", [guesser.id])
        #expect(try join(client, guesser, code).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func aBlockPartsMembersOfWaitingAndRunningRoomsNotOfEndedOnes(transport: Transport) throws {
        let client = transport.client
        let host = try client.register("host")
        let (one, two) = (try client.register("one"), try client.register("two"))
        for friend in [one, two] { try befriend(client, host, friend) }

        // Waiting: the host blocks one; one leaves, two stays.
        let waiting = try open(client, host)
        for friend in [one, two] { #expect(try join(client, friend, waiting.code).status == 200) }
        try block(client, host, one)
        #expect(try states(waiting.id, [host, one, two]) == ["joined", "left", "joined"])
        let seen = try client.send("GET", "/rooms/\(waiting.id)", token: two.token)
        #expect(memberCards(seen.json["room"] as? [String: Any] ?? [:]).count == 3)
        #expect(try join(client, one, waiting.code).status == 404, "one cannot join again")
        #expect(try client.send("POST", "/rooms/\(waiting.id)/leave", token: host.token).status == 200)  // ends it

        // Running: a second host's room with one and two; two blocks one (neither hosts): one leaves.
        let other = try client.register("other")
        for friend in [one, two] { try befriend(client, other, friend) }
        let running = try open(client, other)
        for friend in [one, two] { #expect(try join(client, friend, running.code).status == 200) }
        #expect(try client.send("POST", "/rooms/\(running.id)/start", token: other.token).status == 200)
        try block(client, two, one)
        #expect(try states(running.id, [other, one, two]) == ["joined", "left", "joined"])
        let current = try client.send("GET", "/focus-sessions/current", token: one.token)
        #expect(current.status == 200 && current.json["session"] is [String: Any], "one's session goes on as their own")
        #expect(
            try TestEnvironment.scalar("select status from app.rooms where id = $1::uuid", [running.id]) == "running")

        // Ended: a third room, cancelled by its host; a block then changes nothing in it.
        let third = try client.register("third")
        let (three, four) = (try client.register("three"), try client.register("four"))
        for friend in [three, four] { try befriend(client, third, friend) }
        let ended = try open(client, third)
        for friend in [three, four] { #expect(try join(client, friend, ended.code).status == 200) }
        #expect(try client.send("POST", "/rooms/\(ended.id)/leave", token: third.token).status == 200)
        try block(client, three, four)
        #expect(try states(ended.id, [third, three, four]) == ["left", "joined", "joined"])
    }

    @Test(arguments: Transport.allCases)
    func theBlockedUserSeesTheBlockersNameAsTheBlockLeftIt(transport: Transport) throws {
        let client = transport.client
        let ann = try client.register("ann"), bob = try client.register("bob")
        try befriend(client, ann, bob)
        _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 50, 'trust test')", [bob.id])
        #expect(try client.send("POST", "/gifts", token: bob.token, json: #"{"to":"\#(ann.id)","coins":5}"#).status == 201)
        let room = try open(client, ann)
        #expect(try join(client, bob, room.code).status == 200)

        try block(client, ann, bob)
        let renamed = try client.send("PATCH", "/me", token: ann.token, json: #"{"display_name":"Ann Elsewhere"}"#)
        #expect(renamed.status == 200)

        let sent = try client.send("GET", "/gifts/sent", token: bob.token)
        let gifts = sent.json["gifts"] as? [[String: Any]] ?? []
        #expect(shownName(gifts.compactMap { $0["to"] as? [String: Any] }, ann) == "ann", "GET /gifts/sent: \(sent.text)")
        let detail = try client.send("GET", "/rooms/\(room.id)", token: bob.token)
        #expect(shownName(memberCards(detail.json["room"] as? [String: Any] ?? [:]), ann) == "ann", "GET /rooms/{id}")
        let list = try client.send("GET", "/rooms", token: bob.token)
        let rooms = list.json["rooms"] as? [[String: Any]] ?? []
        #expect(shownName(rooms.flatMap { memberCards($0) }, ann) == "ann", "GET /rooms")
        let own = try client.send("GET", "/rooms/\(room.id)", token: ann.token)
        #expect(shownName(memberCards(own.json["room"] as? [String: Any] ?? [:]), ann) == "Ann Elsewhere", "ann sees her new name")
    }

    @Test(arguments: Transport.allCases)
    func aSuspendedFriendAnswersAsAnExFriend(transport: Transport) throws {
        let client = transport.client
        let lee = try client.register("lee"), sue = try client.register("sue"), exa = try client.register("exa")
        for friend in [sue, exa] { try befriend(client, lee, friend) }
        #expect(try client.send("DELETE", "/friends/\(exa.id)", token: lee.token).status == 204)
        _ = try TestEnvironment.owner().execute(
            "insert into app.suspensions (user_id, until) values ($1::uuid, now() + interval '1 day')", [sue.id])
        _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 50, 'trust test')", [lee.id])
        _ = try TestEnvironment.owner().execute(
            "insert into app.avatars (user_id, content_type, data) "
                + "select u, 'image/png', '\\x89504e470d0a1a0a00'::bytea from unnest(array[$1::uuid, $2::uuid]) u", [sue.id, exa.id])

        let giftSuspended = try client.send("POST", "/gifts", token: lee.token, json: #"{"to":"\#(sue.id)","coins":5}"#)
        let giftEx = try client.send("POST", "/gifts", token: lee.token, json: #"{"to":"\#(exa.id)","coins":5}"#)
        #expect(giftSuspended.status == 404 && giftSuspended.code == "user_not_found", "\(giftSuspended.status) \(giftSuspended.text)")
        #expect(giftSuspended.status == giftEx.status && giftSuspended.body == giftEx.body)

        let inviteSuspended = try client.send(
            "POST", "/rooms", token: lee.token, json: #"{"planned_minutes":25,"invite":["\#(sue.id)"]}"#)
        let inviteEx = try client.send("POST", "/rooms", token: lee.token, json: #"{"planned_minutes":25,"invite":["\#(exa.id)"]}"#)
        #expect(
            inviteSuspended.status == 404 && inviteSuspended.code == "user_not_found", "\(inviteSuspended.status) \(inviteSuspended.text)")
        #expect(inviteSuspended.status == inviteEx.status && inviteSuspended.body == inviteEx.body)

        let avatarSuspended = try client.send("GET", "/users/\(sue.id)/avatar", token: lee.token)
        let avatarEx = try client.send("GET", "/users/\(exa.id)/avatar", token: lee.token)
        #expect(avatarSuspended.status == avatarEx.status && avatarSuspended.body == avatarEx.body)
        #expect(
            try TestEnvironment.scalar(
                "select (select count(*) from app.gifts where sender_id = $1::uuid) + (select count(*) from app.rooms where host_id = $1::uuid)",
                [lee.id]) == "0", "nothing written")
    }
}

// The body's form, before any SQL runs (Pipeline.checkBody, docs/versioning.md): a route that
// takes no body refuses one that says something (400 body_not_allowed) and changes nothing,
// while none or `{}` passes; a JSON body with a key twice in one object, at any depth and
// however escaped, is 400 duplicate_key and changes nothing. Each case in-process and over a
// real socket (Transport.swift).
import Foundation
import Testing

@Suite struct BodyFormHTTPTests {
    let gifts = GiftsHTTPTests()
    let rooms = RoomsHTTPTests()

    func expectRefused(_ result: HTTPResult, _ code: String, _ what: String) {
        #expect(result.status == 400 && result.code == code, "\(what): \(result.status) \(result.text)")
        #expect(result.header("Content-Type") == "application/problem+json", "\(what)")
    }

    /// What an accept or decline may change: the gift, both balances, the ledger, the receiver's items.
    func giftState(_ giftID: String, _ a: Account, _ b: Account) throws -> String? {
        try TestEnvironment.scalar(
            """
            select concat_ws('|', (select status from app.gifts where id = $1::uuid),
                             (select balance from app.users where id = $2::uuid),
                             (select balance from app.users where id = $3::uuid),
                             (select count(*) from app.coin_ledger where user_id in ($2::uuid, $3::uuid)),
                             (select count(*) from app.user_items where user_id = $3::uuid))
            """, [giftID, a.id, b.id])
    }

    @Test(arguments: Transport.allCases)
    func aGiftAcceptWithABodyIsRefusedAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try gifts.friends(client)
        let sent = try gifts.send(client, ann, bob, coins: 120)
        let id = try #require(gifts.gift(sent)["id"] as? String, "\(sent.text)")
        let before = try giftState(id, ann, bob)
        for body in [#"{"coins": 999}"#, #"{"gift_id":"\#(id)"}"#, "[]", "null", "999"] {
            expectRefused(try client.send("POST", "/gifts/\(id)/accept", token: bob.token, json: body), "body_not_allowed", body)
            expectRefused(try client.send("POST", "/gifts/\(id)/decline", token: bob.token, json: body), "body_not_allowed", body)
        }
        // Whatever the Content-Type says, even none.
        expectRefused(
            try client.send("POST", "/gifts/\(id)/accept", token: bob.token, body: Array("coins=999".utf8)), "body_not_allowed",
            "a form")
        #expect(try giftState(id, ann, bob) == before)
        // A body that says nothing is no body: the accept does what it does without one.
        let accepted = try client.send("POST", "/gifts/\(id)/accept", token: bob.token, json: " { } ")
        #expect(accepted.status == 200 && accepted.json["balance"] as? Int == 120, "\(accepted.text)")
    }

    @Test(arguments: Transport.allCases)
    func aRoomLeaveWithABodyIsRefusedAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try rooms.people(client, friends: 1)
        let (id, code) = try rooms.open(client, host)
        #expect(try rooms.join(client, friends[0], code).status == 200)
        let members = "select string_agg(user_id::text || state, ',' order by user_id) from app.room_members where room_id = $1::uuid"
        let before = try TestEnvironment.scalar(members, [id])
        for body in [#"{"user_id":"\#(host.id)"}"#, #"{"room_id":"\#(id)"}"#] {
            expectRefused(try client.send("POST", "/rooms/\(id)/leave", token: friends[0].token, json: body), "body_not_allowed", body)
        }
        // Join takes none either: a second person's body is refused before the room is looked at.
        let stranger = try client.register("stranger")
        expectRefused(
            try client.send("POST", "/rooms/\(code)/join", token: stranger.token, json: #"{"friends_only":false}"#),
            "body_not_allowed", "join")
        #expect(try TestEnvironment.scalar(members, [id]) == before)
        let left = try client.send("POST", "/rooms/\(id)/leave", token: friends[0].token, json: "{}")
        #expect(left.status == 200, "\(left.text)")
    }

    @Test(arguments: Transport.allCases)
    func aStreakFreezeWithABodyIsRefusedAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let streaks = StreakHTTPTests()
        let account = try client.register("freezer")
        try streaks.grant(account, 500)
        let before = try streaks.snapshot(account)
        for body in [#"{"slot": 3, "price": 0}"#, #"{"price":0}"#, #"{"":1}"#] {
            expectRefused(try client.send("POST", "/me/streak-freezes", token: account.token, json: body), "body_not_allowed", body)
        }
        // Under an Idempotency-Key too: refused before the key is kept, so the key is still free.
        let keyed = ["Idempotency-Key": "freeze-\(UUID().uuidString)"]
        expectRefused(
            try client.send("POST", "/me/streak-freezes", token: account.token, json: #"{"slot":3}"#, headers: keyed),
            "body_not_allowed", "keyed")
        #expect(try streaks.snapshot(account) == before)
        let bought = try client.send("POST", "/me/streak-freezes", token: account.token, json: "{}", headers: keyed)
        #expect(bought.status == 201, "\(bought.text)")
        #expect(try client.send("POST", "/me/streak-freezes", token: account.token, headers: keyed).status == 201)
    }

    /// GETs take no body either, the service routes and the events endpoint at the socket included.
    @Test(arguments: Transport.allCases)
    func readsRefuseABodyToo(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("reader")
        for path in ["/me", "/events", "/shop/items", "/health", "/config"] {
            expectRefused(try client.send("GET", path, token: account.token, json: #"{"a":1}"#), "body_not_allowed", path)
            #expect(try client.send("GET", path, token: account.token, json: "{}").status == 200, "\(path) with {}")
        }
        // The body limit holds here too, before the body's presence: 413, as documented.
        let large = try client.send("GET", "/me", token: account.token, json: "{" + String(repeating: " ", count: 70_000) + "}")
        #expect(large.status == 413 && large.code == "body_too_large", "\(large.text)")
    }

    @Test(arguments: Transport.allCases)
    func aKeyTwiceAtTheTopIsRefusedAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try gifts.friends(client)
        let gifted = "select count(*) from app.gifts where sender_id = $1::uuid"
        for body in [
            #"{"to":"\#(bob.id)","coins":1,"coins":999}"#, #"{"to":"\#(bob.id)","coins":1,"c\u006fins":999}"#,
            #"{"to":"\#(ann.id)","to":"\#(bob.id)","coins":1}"#,
        ] {
            let refused = try client.send("POST", "/gifts", token: ann.token, json: body)
            expectRefused(refused, "duplicate_key", body)
            #expect(["coins", "to"].contains(refused.json["key"] as? String), "\(refused.text)")
        }
        #expect(try gifts.balance(ann) == "500" && TestEnvironment.scalar(gifted, [ann.id]) == "0")

        let name = "select display_name from app.users where id = $1::uuid"
        let renamed = try client.send(
            "PATCH", "/me", token: ann.token, json: #"{"display_name":"First","display\u005fname":"Second"}"#)
        expectRefused(renamed, "duplicate_key", "PATCH /me")
        #expect(renamed.json["key"] as? String == "display_name")
        #expect(try TestEnvironment.scalar(name, [ann.id]) == "giver")
        // Public routes too, before the credentials are looked at.
        let login = try client.send(
            "POST", "/auth/login", json: #"{"email":"\#(ann.email)","password":"wrong","password":"correct horse"}"#)
        expectRefused(login, "duplicate_key", "login")
    }

    @Test(arguments: Transport.allCases)
    func aKeyTwiceInANestedObjectIsRefusedAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("nested")
        let sessions = "select count(*) from app.focus_sessions where user_id = $1::uuid"
        let ends = try #require(try TestEnvironment.scalar("select to_json(now() - interval '30 minutes')#>>'{}'"))
        let starts = try #require(try TestEnvironment.scalar("select to_json(now() - interval '60 minutes')#>>'{}'"))
        func batch(_ extra: String) -> String {
            #"{"sessions":[{"id":"\#(UUID())","started_at":"\#(starts)","ended_at":"\#(ends)","tag":"math"\#(extra)}]}"#
        }
        for extra in [#","tag":"reading""#, #","t\u0061g":"reading""#] {
            let refused = try client.send("POST", "/focus-sessions/batch", token: account.token, json: batch(extra))
            expectRefused(refused, "duplicate_key", extra)
            #expect(refused.json["key"] as? String == "tag")
        }
        #expect(try TestEnvironment.scalar(sessions, [account.id]) == "0")
        // The same key in two objects is no duplicate: the batch records.
        let recorded = try client.send("POST", "/focus-sessions/batch", token: account.token, json: batch(""))
        #expect(recorded.status == 200, "\(recorded.text)")
        #expect(try TestEnvironment.scalar(sessions, [account.id]) == "1")
    }
}

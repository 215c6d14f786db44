// Gifts end to end: a friend sends coins and an item, the receiver hears gift.received on their
// stream and accepts or declines; the sender's hold, the credit and the refund in the ledger;
// the lists in pages; the error cases (unknown ids, another user's gift, a block, a stranger,
// insufficient funds, the daily limit, a sender unverified or too new) change nothing; a change
// of time zone does not reset the daily limit; a double accept racing itself credits
// once, and an accept racing a decline is one or the other. A seasonal item outside its window
// cannot be gifted (in ShopHTTPTests, which is serialized: it adds catalog items).
import Foundation
import Testing

@Suite struct GiftsHTTPTests {
    /// Makes `a` and `b` friends: b asks, a accepts.
    func befriend(_ client: Client, _ a: Account, _ b: Account) throws {
        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let id = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        #expect(try client.send("POST", "/friend-requests/\(id)/accept", token: a.token).status == 200)
    }

    /// Two friends, the first with `coins`.
    func friends(_ client: Client, coins: Int = 500) throws -> (Account, Account) {
        let sender = try client.register("giver"), receiver = try client.register("taker")
        try TestEnvironment.holdEveryAchievement(sender.id)
        try TestEnvironment.holdEveryAchievement(receiver.id)
        try befriend(client, sender, receiver)
        _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, $2::integer, 'gift test')", [sender.id, String(coins)])
        return (sender, receiver)
    }

    func send(_ client: Client, _ from: Account, _ to: Account, coins: Int) throws -> HTTPResult {
        try client.send("POST", "/gifts", token: from.token, json: #"{"to":"\#(to.id)","coins":\#(coins)}"#)
    }

    func gift(_ result: HTTPResult) -> [String: Any] { result.json["gift"] as? [String: Any] ?? [:] }

    func balance(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select balance from app.users where id = $1::uuid", [account.id])
    }

    @Test(arguments: Transport.allCases)
    func coinsAndAnItemAreSentAcceptedAndDeclined(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try friends(client)
        let stream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: bob.token, headers: [:])
        let sent = try send(client, ann, bob, coins: 120)
        #expect(sent.status == 201, "\(sent.text)")
        #expect(sent.json["balance"] as? Int == 380 && gift(sent)["status"] as? String == "pending")
        var received: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        while received.isEmpty, let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if event.type == "gift.received" { received = event.json["data"] as? [String: Any] ?? [:] }
        }
        #expect(received["gift_id"] as? String == gift(sent)["id"] as? String && received["user_id"] as? String == ann.id)
        #expect(received["coins"] as? Int == 120 && received["email"] == nil && received["balance"] == nil)

        let item = try TestEnvironment.scalar("select id from app.shop_items where name = 'Pip the Fox'") ?? ""
        let itemGift = try client.send("POST", "/gifts", token: ann.token, json: #"{"to":"\#(bob.id)","item_id":"\#(item)"}"#)
        #expect(itemGift.status == 201 && itemGift.json["balance"] as? Int == 200)

        let pending = try client.send("GET", "/gifts/received?limit=1", token: bob.token)
        #expect((pending.json["gifts"] as? [[String: Any]])?.count == 1 && pending.json["next_cursor"] is String)
        let cursor = pending.json["next_cursor"] as? String ?? ""
        let rest = try client.send("GET", "/gifts/received?limit=1&cursor=\(cursor)", token: bob.token)
        #expect((rest.json["gifts"] as? [[String: Any]])?.count == 1 && rest.json["next_cursor"] is NSNull)

        let coinID = gift(sent)["id"] as? String ?? "", itemID = gift(itemGift)["id"] as? String ?? ""
        let accepted = try client.send("POST", "/gifts/\(coinID)/accept", token: bob.token)
        #expect(accepted.status == 200 && accepted.json["balance"] as? Int == 120)
        let taken = try client.send("POST", "/gifts/\(itemID)/accept", token: bob.token)
        #expect(gift(taken)["status"] as? String == "accepted")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.user_items where user_id = $1::uuid and item_id = $2::uuid", [bob.id, item]) == "1")
        let sentList = try client.send("GET", "/gifts/sent", token: ann.token)
        #expect((sentList.json["gifts"] as? [[String: Any]])?.map { $0["status"] as? String } == ["accepted", "accepted"])

        let third = try send(client, ann, bob, coins: 50)
        let declined = try client.send("POST", "/gifts/\(gift(third)["id"] as? String ?? "")/decline", token: bob.token)
        #expect(declined.status == 200 && gift(declined)["status"] as? String == "declined")
        #expect(try balance(ann) == "200" && balance(bob) == "120")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
    }

    /// Two accepts at once: both answer 200, the coins are credited once.
    @Test(arguments: Transport.allCases)
    func aDoubleAcceptCreditsOnce(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try friends(client)
        let id = gift(try send(client, ann, bob, coins: 70))["id"] as? String ?? ""
        let statuses = try concurrently(2) { _ in try client.send("POST", "/gifts/\(id)/accept", token: bob.token).status }
        #expect(statuses == [200, 200])
        #expect(try balance(bob) == "70" && balance(ann) == "430")
    }

    /// An accept racing a decline: one wins, the other is 409 gift_not_pending; the coins are
    /// either the receiver's or back with the sender, never both.
    @Test(arguments: Transport.allCases)
    func anAcceptRacingADeclineIsOneOrTheOther(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try friends(client)
        let id = gift(try send(client, ann, bob, coins: 40))["id"] as? String ?? ""
        let results = try concurrently(2) { index in
            try client.send("POST", "/gifts/\(id)/\(index == 0 ? "accept" : "decline")", token: bob.token)
        }
        #expect(results.map(\.status).sorted() == [200, 409])
        #expect(results.compactMap(\.code) == ["gift_not_pending"])
        let status = try TestEnvironment.scalar("select status from app.gifts where id = $1::uuid", [id])
        let expected = status == "accepted" ? ("460", "40") : ("500", "0")
        #expect(try balance(ann) == expected.0 && balance(bob) == expected.1)
    }

    @Test(arguments: Transport.allCases)
    func errorCasesAnswerTheirCodesAndChangeNothing(transport: Transport) throws {
        let client = transport.client
        let (ann, bob) = try friends(client, coins: 600)
        let stranger = try client.register("stranger")
        let (blocker, _) = try friends(client)
        try befriend(client, ann, blocker)
        #expect(try client.send("POST", "/users/\(ann.id)/block", token: blocker.token).status == 204)
        let pendingID = gift(try send(client, ann, bob, coins: 10))["id"] as? String ?? ""
        func rows() throws -> String? {
            try TestEnvironment.scalar(
                "select (select count(*) from app.gifts where $1::uuid in (sender_id, receiver_id)) || ' ' || "
                    + "(select count(*) from app.coin_ledger where user_id = $1::uuid) || ' ' || "
                    + "(select status from app.gifts where id = $2::uuid)", [ann.id, pendingID])
        }
        let before = try rows()
        let cases: [(String, String, Account?, String?, Int, String)] = [
            ("POST", "/gifts", ann, #"{"to":"\#(stranger.id)","coins":5}"#, 404, "user_not_found"),
            ("POST", "/gifts", ann, #"{"to":"\#(blocker.id)","coins":5}"#, 404, "user_not_found"),
            ("POST", "/gifts", blocker, #"{"to":"\#(ann.id)","coins":5}"#, 404, "user_not_found"),
            ("POST", "/gifts", ann, #"{"to":"\#(UUID().uuidString)","coins":5}"#, 404, "user_not_found"),
            ("POST", "/gifts", ann, #"{"to":"\#(ann.id)","coins":5}"#, 422, "cannot_gift_self"),
            ("POST", "/gifts", ann, #"{"to":"\#(bob.id)","coins":"5"}"#, 400, "invalid_field"),
            ("POST", "/gifts", ann, #"{"to":"\#(bob.id)","coins":5,"note":"hi"}"#, 400, "invalid_field"),
            ("POST", "/gifts", ann, #"{"to":"\#(bob.id)","coins":"#, 400, "invalid_json"),
            ("POST", "/gifts", ann, #"{"to":"\#(bob.id)","item_id":"\#(UUID().uuidString)"}"#, 404, "item_not_found"),
            ("POST", "/gifts", ann, #"{"to":"\#(bob.id)","coins":491}"#, 429, "gift_limit_reached"),
            ("POST", "/gifts", bob, #"{"to":"\#(ann.id)","coins":5}"#, 409, "insufficient_funds"),
            ("POST", "/gifts", nil, #"{"to":"\#(bob.id)","coins":5}"#, 401, "unauthorized"),
            ("POST", "/gifts/\(pendingID)/accept", ann, nil, 404, "gift_not_found"),
            ("POST", "/gifts/\(pendingID)/decline", stranger, nil, 404, "gift_not_found"),
            ("POST", "/gifts/\(UUID().uuidString)/accept", bob, nil, 404, "gift_not_found"),
            ("POST", "/gifts/not-a-uuid/accept", bob, nil, 400, "invalid_field"),
            ("GET", "/gifts/received?cursor=nope", bob, nil, 400, "invalid_cursor"),
            ("GET", "/gifts/sent?limit=0", ann, nil, 400, "invalid_field"),
        ]
        for (method, path, account, json, status, code) in cases {
            let result = try client.send(method, path, token: account?.token, json: json)
            #expect(result.status == status && result.code == code, "\(method) \(path) \(json ?? ""): \(result.status) \(result.text)")
            if code == "gift_limit_reached" { #expect(Int(result.header("Retry-After") ?? "") ?? 0 > 0) }
        }
        #expect(try rows() == before, "nothing changed")
    }

    /// Who may send (docs/gifts.md, "Who may send"): an unverified sender, and a verified one
    /// whose account is younger than app.gift_settings.min_sender_account_age (7 days), are 403
    /// gift_sender_not_eligible, coins and items alike, and nothing is written; at 7 days old,
    /// verified, the gift goes.
    @Test(arguments: Transport.allCases)
    func onlyAVerifiedAccountAWeekOldSendsGifts(transport: Transport) throws {
        let client = transport.client
        let (_, bob) = try friends(client)
        let unverified = try client.register("unverified", verified: false)
        let young = try client.register("young", age: .seconds(7 * 86_400 - 60))
        for sender in [unverified, young] {
            try TestEnvironment.holdEveryAchievement(sender.id)
            try befriend(client, bob, sender)
            _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 500, 'gift test')", [sender.id])
        }
        let item = try TestEnvironment.scalar("select id from app.shop_items where name = 'Pip the Fox'") ?? ""
        let snapshot = """
            select (select count(*) from app.gifts where sender_id in ($1, $2)) || ' ' ||
                   (select count(*) from app.coin_ledger where user_id in ($1, $2, $3)) || ' ' ||
                   (select string_agg(balance::text, ',' order by id) from app.users where id in ($1, $2, $3))
            """
        let before = try TestEnvironment.scalar(snapshot, [unverified.id, young.id, bob.id])
        for (sender, verified) in [(unverified, false), (young, true)] {
            for body in [#"{"to":"\#(bob.id)","coins":50}"#, #"{"to":"\#(bob.id)","item_id":"\#(item)"}"#] {
                let refused = try client.send("POST", "/gifts", token: sender.token, json: body)
                #expect(refused.status == 403 && refused.code == "gift_sender_not_eligible", "\(refused.status) \(refused.text)")
                #expect(refused.json["email_verified"] as? Bool == verified)
                #expect(refused.json["account_old_enough_at"] is String)
            }
        }
        #expect(try TestEnvironment.scalar(snapshot, [unverified.id, young.id, bob.id]) == before, "nothing changed")

        _ = try TestEnvironment.scalar("update app.users set created_at = now() - interval '7 days' where id = $1::uuid", [young.id])
        let sent = try send(client, young, bob, coins: 50)
        #expect(sent.status == 201 && sent.json["balance"] as? Int == 450, "\(sent.status) \(sent.text)")
    }

    /// A change of time zone opens no fresh day (docs/economy.md, "Limits count UTC days"): a
    /// sender at UTC+14 gave the day's 500 coins at the first instant of the UTC day (written as
    /// the endpoint would have then) and is refused; they move (PATCH /me) to the zone whose
    /// midnight passed last, where by their new local day they gave nothing yet, and the next
    /// gift is still 429 gift_limit_reached, Retry-After to the next UTC midnight.
    @Test(arguments: Transport.allCases)
    func aChangeOfTimeZoneDoesNotResetTheDailyLimit(transport: Transport) throws {
        let client = transport.client
        let (refused, moved, expected) = try TestEnvironment.withinOneUTCDay { clock in
            let (ann, bob) = try friends(client, coins: 1000)
            let zone = try client.send("PATCH", "/me", token: ann.token, json: #"{"settings":{"time_zone":"Pacific/Kiritimati"}}"#)
            #expect(zone.status == 200, "\(zone.text)")
            _ = try TestEnvironment.scalar(
                "insert into app.gifts (sender_id, receiver_id, coins, paid, status, created_at, expires_at, ended_at) "
                    + "select $1::uuid, $2::uuid, 100, 100, 'declined', $3::timestamptz, $3::timestamptz + interval '7 days', "
                    + "$3::timestamptz from generate_series(1, 5)",
                [ann.id, bob.id, clock.todayStart.rfc3339])
            let refused = try send(client, ann, bob, coins: 1)
            let latest =
                try TestEnvironment.scalar(
                    "select name from pg_timezone_names "
                        + "order by now() - (date_trunc('day', now() at time zone name) at time zone name), name limit 1") ?? "UTC"
            let patched = try client.send("PATCH", "/me", token: ann.token, json: #"{"settings":{"time_zone":"\#(latest)"}}"#)
            #expect(patched.status == 200, "\(patched.text)")
            let moved = try send(client, ann, bob, coins: 1)
            let expected = clock.todayStart.addingTimeInterval(86_400).timeIntervalSince(try TestEnvironment.databaseNow())
            return (refused, moved, expected)
        }
        #expect(refused.status == 429 && refused.code == "gift_limit_reached", "\(refused.status) \(refused.text)")
        #expect(moved.status == 429 && moved.code == "gift_limit_reached", "\(moved.status) \(moved.text)")
        #expect(moved.json["coins_today"] as? Int == 500 && moved.json["sent_today"] as? Int == 5)
        let retryAfter = Double(moved.header("Retry-After") ?? "") ?? 0
        #expect(abs(retryAfter - expected) <= 5, "Retry-After \(retryAfter), the next UTC midnight in \(expected)")
    }
}

extension ShopHTTPTests {
    /// A gift honours an item's seasonal window exactly as a purchase does (docs/gifts.md): before
    /// or after it, 404 item_not_found and nothing written; inside it, the gift is sent.
    @Test(arguments: Transport.allCases)
    func aSeasonalItemOutsideItsWindowCannotBeGifted(transport: Transport) throws {
        let client = transport.client
        let gifts = GiftsHTTPTests()
        let (ann, bob) = try gifts.friends(client, coins: 300)
        let items = try addItems(3, price: 90)
        defer { try? retire(items) }
        try placeInWindows(items)
        let snapshot = """
            select md5(concat_ws('|', (select string_agg(balance::text, ',' order by id) from app.users where id in ($1, $2)),
                                 (select count(*) from app.gifts where sender_id = $1),
                                 (select count(*) from app.coin_ledger where user_id in ($1, $2)),
                                 (select count(*) from app.user_items where user_id = $2),
                                 (select count(*) from app.events where user_id in ($1, $2))))
            """
        let before = try TestEnvironment.scalar(snapshot, [ann.id, bob.id])
        for outside in items.dropFirst() {
            let refused = try client.send("POST", "/gifts", token: ann.token, json: #"{"to":"\#(bob.id)","item_id":"\#(outside)"}"#)
            #expect(refused.status == 404 && refused.code == "item_not_found", "\(refused.status) \(refused.text)")
            #expect(try purchase(client, ann, outside).code == "item_not_found", "the answer a purchase gives")
        }
        #expect(try TestEnvironment.scalar(snapshot, [ann.id, bob.id]) == before, "nothing changed")
        let sent = try client.send("POST", "/gifts", token: ann.token, json: #"{"to":"\#(bob.id)","item_id":"\#(items[0])"}"#)
        #expect(sent.status == 201 && sent.json["balance"] as? Int == 210, "\(sent.status) \(sent.text)")
    }
}

// Shop and inventory end to end: catalog ETag, sync, purchases under concurrency, isolation.
// Each case runs in-process through the pipeline and over a real socket (Transport.swift).
import Foundation
import Testing

// Serialized: some tests add catalog items, which would move the set another test compares.
@Suite(.serialized) struct ShopHTTPTests {
    /// Adds `count` test items at `price` (retired again by the caller) and returns their ids.
    func addItems(_ count: Int, price: Int) throws -> [String] {
        let tag = UInt32.random(in: 0 ... .max)
        return try TestEnvironment.owner().execute(
            """
            insert into app.shop_items (kind, name, description, price, image)
            select 'furniture', 'Test ' || $1 || '-' || n, 'A test item.', $2::integer, 'furniture/test.png'
            from generate_series(1, $3::integer) n
            returning id::text
            """, [String(tag), String(price), String(count)]
        ).compactMap { $0[0] }
    }

    func retire(_ ids: [String]) throws {
        try TestEnvironment.owner().execute(
            "update app.shop_items set active = false where id = any($1::uuid[])",
            ["{" + ids.joined(separator: ",") + "}"])
    }

    func grant(_ account: Account, _ coins: Int) throws {
        try TestEnvironment.owner().execute("select app.grant_coins($1, $2, 'test')", [account.id, String(coins)])
    }

    /// Gives three items seasonal windows, from the database's now: the first is in its window,
    /// the second's begins tomorrow, the third's ended yesterday.
    func placeInWindows(_ items: [String]) throws {
        try TestEnvironment.owner().execute(
            """
            update app.shop_items i
            set available_from = now() + w.from_offset, available_until = now() + w.until_offset
            from (values ($1::uuid, interval '-1 day', interval '1 day'), ($2::uuid, interval '1 day', interval '2 days'),
                         ($3::uuid, interval '-2 days', interval '-1 day')) as w(id, from_offset, until_offset)
            where i.id = w.id
            """, items)
    }

    func purchase(_ client: Client, _ account: Account, _ itemID: String) throws -> HTTPResult {
        try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(itemID)"}"#)
    }

    @Test(arguments: Transport.allCases)
    func fiftyPurchasesAtOnceWithCoinsForTenBuyExactlyTen(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("fifty")
        let items = try addItems(50, price: 10)
        defer { try? retire(items) }
        try grant(account, 100)

        let statuses = try concurrently(50) { index in try purchase(client, account, items[index]).status }
        let summary = "201: \(statuses.filter { $0 == 201 }.count), 409: \(statuses.filter { $0 == 409 }.count)"
        print("\(transport): 50 concurrent purchases with coins for 10 → \(summary)")
        #expect(statuses.filter { $0 == 201 }.count == 10)
        #expect(statuses.filter { $0 == 409 }.count == 40)
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "0")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.user_items where user_id = $1 and item_id = any($2::uuid[])",
                [account.id, "{" + items.joined(separator: ",") + "}"]) == "10")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
    }

    @Test(arguments: Transport.allCases)
    func theSameItemBoughtTwentyTimesAtOnceIsChargedOnce(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("twenty")
        let items = try addItems(1, price: 25)
        defer { try? retire(items) }
        try grant(account, 100)

        let results = try concurrently(20) { _ in try purchase(client, account, items[0]) }
        print(
            "\(transport): 20 concurrent purchases of one item → 201: \(results.filter { $0.status == 201 }.count), 200 already_owned: \(results.filter { $0.status == 200 }.count)"
        )
        #expect(results.filter { $0.status == 201 }.count == 1)
        #expect(results.filter { $0.status == 200 && $0.json["already_owned"] as? Bool == true }.count == 19)
        // One name for the moment an item became yours, as in GET /me/items: acquired_at, the same in every answer.
        #expect(Set(results.compactMap { $0.json["acquired_at"] as? String }).count == 1)
        #expect(results.allSatisfy { $0.json["purchased_at"] == nil })
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "75")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.coin_ledger where user_id = $1 and entry = 'spend'",
                [account.id]) == "1")
    }

    @Test(arguments: Transport.allCases)
    func purchaseErrorsChangeNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("poor")
        let items = try addItems(1, price: 500)
        defer { try? retire(items) }
        try grant(account, 30)
        let snapshot = """
            select md5(concat_ws('|', (select balance from app.users where id = $1),
                                 (select count(*) from app.user_items where user_id = $1),
                                 (select count(*) from app.coin_ledger where user_id = $1)))
            """
        let before = try TestEnvironment.scalar(snapshot, [account.id])

        let poor = try purchase(client, account, items[0])
        #expect(poor.status == 409 && poor.code == "insufficient_funds")
        #expect(poor.json["balance"] as? Int == 30 && poor.json["price"] as? Int == 500)
        let unknown = try purchase(client, account, UUID().uuidString)
        #expect(unknown.status == 404 && unknown.code == "item_not_found")
        let malformed = try purchase(client, account, "not-a-uuid")
        #expect(malformed.status == 400 && malformed.code == "invalid_field")
        let wrongType = try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":42}"#)
        #expect(wrongType.status == 400 && wrongType.code == "invalid_field")
        let noToken = try client.send("POST", "/shop/purchases", json: #"{"item_id":"\#(items[0])"}"#)
        #expect(noToken.status == 401)
        #expect(try TestEnvironment.scalar(snapshot, [account.id]) == before)
    }

    @Test(arguments: Transport.allCases)
    func catalogHasAnETagAndAnswersIfNoneMatch(transport: Transport) throws {
        let client = transport.client
        let first = try client.send("GET", "/shop/items")
        #expect(first.status == 200)
        #expect((first.json["pets"] as? [Any])?.isEmpty == false)
        let tag = try #require(first.header("ETag"))
        let again = try client.send("GET", "/shop/items", headers: ["If-None-Match": tag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == tag)
        let stale = try client.send("GET", "/shop/items", headers: ["If-None-Match": #""catalog-0""#])
        #expect(stale.status == 200)
    }

    /// One ETag per language (docs/languages.md); a tag answers If-None-Match in its own language only.
    @Test(arguments: Transport.allCases)
    func theCatalogHasAnETagPerLanguage(transport: Transport) throws {
        let client = transport.client
        let spanish = try client.send("GET", "/shop/items", headers: ["Accept-Language": "es"])
        let english = try client.send("GET", "/shop/items", headers: ["Accept-Language": "fr"])
        let spanishTag = try #require(spanish.header("ETag"))
        #expect(spanishTag.hasSuffix("-es\"") && english.header("ETag")?.hasSuffix("-en\"") == true)
        let revalidated = try client.send(
            "GET", "/shop/items", headers: ["Accept-Language": "es-MX", "If-None-Match": spanishTag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        #expect(revalidated.header("Vary") == "Accept-Language" && revalidated.header("ETag") == spanishTag)
        let otherLanguage = try client.send(
            "GET", "/shop/items", headers: ["Accept-Language": "en", "If-None-Match": spanishTag])
        #expect(otherLanguage.status == 200 && otherLanguage.header("ETag") == english.header("ETag"))
    }

    @Test(arguments: Transport.allCases)
    func syncReturnsTheSetDifferenceForTenThousandIDs(transport: Transport) throws {
        let client = transport.client
        let active = try TestEnvironment.owner().execute(
            "select i.id::text from app.shop_items i where exists (select from app.item_price_at(i.id, now()))"
        ).compactMap { $0[0] }
        let stale = (0..<10_000).map { _ in UUID().uuidString.lowercased() }
        let known = Array(active.dropFirst(3)) + stale
        let body = #"{"known_ids":["# + known.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        #expect(body.utf8.count > 64 * 1024)
        let result = try client.send("POST", "/sync/shop-items", json: body)
        #expect(result.status == 200)
        let sync = try result.decode(SyncReply.self)
        #expect(Set(sync.missing.map(\.id)) == Set(active.prefix(3)))
        #expect(Set(sync.removed) == Set(stale))

        let none = try client.send("POST", "/sync/shop-items", json: #"{"known_ids":[]}"#)
        #expect(Set(try none.decode(SyncReply.self).missing.map(\.id)) == Set(active))
        let bad = try client.send("POST", "/sync/shop-items", json: #"{"known_ids":["nope"]}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }

    @Test(arguments: Transport.allCases)
    func inventoryAndSelectionBelongToTheirOwner(transport: Transport) throws {
        let client = transport.client
        let alice = try client.register("alice")
        let bob = try client.register("bob")
        let items = try addItems(1, price: 10)
        defer { try? retire(items) }
        try grant(alice, 10)
        #expect(try purchase(client, alice, items[0]).status == 201)
        #expect(try client.send("PUT", "/me/selected/furniture", token: alice.token, json: #"{"item_id":"\#(items[0])"}"#).status == 200)

        let bobsIDs = try client.send("GET", "/me/items", token: bob.token).decode(Inventory.self).items.map(\.item.id)
        #expect(bobsIDs.count == 3)
        #expect(!bobsIDs.contains(items[0]))

        let stolen = try client.send("PUT", "/me/selected/furniture", token: bob.token, json: #"{"item_id":"\#(items[0])"}"#)
        #expect(stolen.status == 409 && stolen.code == "not_owned")
        let mismatch = try client.send("PUT", "/me/selected/pet", token: alice.token, json: #"{"item_id":"\#(items[0])"}"#)
        #expect(mismatch.status == 400 && mismatch.code == "kind_mismatch")
        let badKind = try client.send("PUT", "/me/selected/hat", token: alice.token, json: #"{"item_id":"\#(items[0])"}"#)
        #expect(badKind.status == 400 && badKind.code == "invalid_field")

        let aliceMe = try client.send("GET", "/me", token: alice.token).decode(Profile.self)
        #expect(aliceMe.selected.furniture?.id == items[0])
        #expect(aliceMe.balance == 0)
        let pets = try client.send("GET", "/me/items?kind=pet", token: alice.token).decode(Inventory.self)
        #expect(pets.items.map(\.item.kind) == ["pet"])
    }
}

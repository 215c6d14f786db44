// Seasonal items and sales end to end (docs/shop.md): the catalog before and after a sale's end
// on the database's clock, its ETag and the server's cache following through the job
// shop_windows; a purchase charged the price of its moment, the ledger naming the sale; a
// seasonal item outside its window absent from the catalog and 404 to buy, changing nothing.
// In ShopHTTPTests' serialized suite: these add catalog items too.
import Foundation
import Testing

extension ShopHTTPTests {
    /// An item of the catalog answer by id, or nil when the catalog does not list it.
    func offer(_ catalog: HTTPResult, _ id: String) -> [String: Any]? {
        let items = ["pets", "sounds", "furniture"].flatMap { catalog.json[$0] as? [[String: Any]] ?? [] }
        return items.first { $0["id"] as? String == id }
    }

    /// GET /shop/items until `done` holds: a catalog change reaches the server's cache by a
    /// notification (catalog.changed), a moment after the commit. Returns the last answer.
    func catalog(_ client: Client, until done: (HTTPResult) -> Bool) throws -> HTTPResult {
        var answer = try client.send("GET", "/shop/items")
        for _ in 0..<300 where !done(answer) {
            usleep(20_000)
            answer = try client.send("GET", "/shop/items")
        }
        return answer
    }

    @Test(arguments: Transport.allCases)
    func theCatalogFollowsASaleEndingOnTheDatabaseClock(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("saleend")
        let items = try addItems(1, price: 950)
        defer { try? retire(items) }
        try grant(account, 950)
        // The sale ends three to four seconds ahead of the database's clock.
        let end = try #require(
            try TestEnvironment.scalar(
                """
                insert into app.shop_sales (item_id, price, starts_at, ends_at)
                values ($1, 500, now() - interval '1 hour', date_trunc('second', clock_timestamp()) + interval '4 seconds')
                returning api.iso(ends_at)
                """, [items[0]]))

        let before = try catalog(client) { offer($0, items[0]) != nil }
        let onSale = try #require(offer(before, items[0]))
        #expect(onSale["price"] as? Int == 500 && onSale["regular_price"] as? Int == 950)
        #expect(onSale["sale_ends_at"] as? String == end)
        let saleTag = try #require(before.header("ETag"))

        // The database's clock passes the sale's end.
        while try TestEnvironment.scalar("select clock_timestamp() >= $1::timestamptz", [end]) != "t" { usleep(100_000) }
        // SQL answers at its now() at once: another answer, another ETag.
        let sqlTag = try #require(try TestEnvironment.scalar("select (api.shop_items_list(null, '{}', '{}')).etag"))
        #expect("\"\(sqlTag)\"" != saleTag)
        // A purchase after the end pays the full price, whatever a cache still shows.
        let bought = try purchase(client, account, items[0])
        #expect(bought.status == 201 && bought.json["balance"] as? Int == 0)
        #expect(
            try TestEnvironment.scalar(
                "select amount || ' ' || coalesce(sale_id::text, 'no sale') from app.coin_ledger where user_id = $1 and entry = 'spend'",
                [account.id]) == "-950 no sale")

        // The job shop_windows (the listener runs it every minute; here at once) moves the
        // version and announces catalog.changed: the server's cache empties.
        _ = try TestEnvironment.scalar("update app.scheduled_jobs set next_run_at = now() where name = 'shop_windows'")
        _ = try TestEnvironment.scalar("select api.jobs_run()")
        #expect(try TestEnvironment.scalar("select last_error is null from app.scheduled_jobs where name = 'shop_windows'") == "t")
        let after = try catalog(client) { offer($0, items[0])?["price"] as? Int == 950 }
        let regular = try #require(offer(after, items[0]))
        #expect(regular["price"] as? Int == 950 && regular["sale_ends_at"] is NSNull)
        let regularTag = try #require(after.header("ETag"))
        #expect(regularTag != saleTag)
        #expect(try client.send("GET", "/shop/items", headers: ["If-None-Match": saleTag]).status == 200)
        #expect(try client.send("GET", "/shop/items", headers: ["If-None-Match": regularTag]).status == 304)
    }

    @Test(arguments: Transport.allCases)
    func aPurchaseDuringASalePaysTheSalePriceAndTheLedgerNamesTheSale(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("salebuy")
        let items = try addItems(1, price: 950)
        defer { try? retire(items) }
        try grant(account, 600)
        let sale = try #require(
            try TestEnvironment.scalar(
                "insert into app.shop_sales (item_id, price, starts_at, ends_at) values ($1, 500, now() - interval '1 hour', now() + interval '1 day') returning id::text",
                [items[0]]))

        let bought = try purchase(client, account, items[0])
        #expect(bought.status == 201 && bought.json["balance"] as? Int == 100)
        let item = try #require(bought.json["item"] as? [String: Any])
        #expect(item["price"] as? Int == 500 && item["regular_price"] as? Int == 950 && item["sale_ends_at"] is String)
        #expect(
            try TestEnvironment.scalar(
                "select amount || ' ' || sale_id from app.coin_ledger where user_id = $1 and entry = 'spend'", [account.id])
                == "-500 \(sale)")
        let sync = try client.send("POST", "/sync/shop-items", json: #"{"known_ids":[]}"#)
        let sales = sync.json["sales"] as? [[String: Any]] ?? []
        #expect(sales.contains { $0["item_id"] as? String == items[0] && $0["price"] as? Int == 500 })
    }

    @Test(arguments: Transport.allCases)
    func aSeasonalItemOutsideItsWindowIsNotInTheShop(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("season")
        let items = try addItems(3, price: 950)
        defer { try? retire(items) }
        try grant(account, 950)
        try placeInWindows(items)

        let shop = try catalog(client) { offer($0, items[0])?["available_until"] is String }
        #expect(offer(shop, items[0]) != nil && offer(shop, items[1]) == nil && offer(shop, items[2]) == nil)
        let snapshot = """
            select md5(concat_ws('|', (select balance from app.users where id = $1),
                                 (select count(*) from app.user_items where user_id = $1),
                                 (select count(*) from app.coin_ledger where user_id = $1)))
            """
        let before = try TestEnvironment.scalar(snapshot, [account.id])
        for outside in items.dropFirst() {
            let refused = try purchase(client, account, outside)
            #expect(refused.status == 404 && refused.code == "item_not_found")
        }
        #expect(try TestEnvironment.scalar(snapshot, [account.id]) == before)
        #expect(try purchase(client, account, items[0]).status == 201)
    }
}

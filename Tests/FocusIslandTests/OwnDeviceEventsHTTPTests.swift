import Foundation
import Testing

// Events to one's own other devices, end to end: what a person does with one token (a phone)
// reaches the streams and long-polls of their other tokens (an iPad), never the acting one's
// own (app.events.origin_token; sql/app/025_own_events.sql). A balance.changed, which every
// device hears, marks where a stream has read up to, so "not told" needs no waiting.
@testable import FocusIsland

@Suite struct OwnDeviceEventsHTTPTests {
    static let broadcastTypes: Set<String?> = ["catalog.changed", "tips.changed"]

    func stream(_ account: Account) throws -> EventStreamClient {
        try EventStreamClient(port: TestServer.client().port, target: "/events", token: account.token)
    }

    /// The stream's own (not broadcast) events up to and including the next balance.changed.
    func untilBalance(_ stream: EventStreamClient) throws -> [String] {
        var types: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if Self.broadcastTypes.contains(event.type) { continue }
            types.append(event.type ?? "")
            if event.type == "balance.changed" { return types }
        }
        Issue.record("no balance.changed within 10 s; got \(types)")
        return types
    }

    func grant(_ account: Account, _ coins: Int) throws {
        _ = try TestEnvironment.owner().execute(
            "select app.grant_coins($1::uuid, $2::integer, 'own device events test')", [account.id, String(coins)])
    }

    /// The own event types a token's long-poll answers after `after`.
    func polled(_ client: Client, _ account: Account, after: String) throws -> [String] {
        try TestEnvironment.eventsReadable()
        let result = try client.send("GET", "/events?after=\(after)&wait=0", token: account.token)
        #expect(result.status == 200)
        return ((result.json["events"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }
            .filter { !Self.broadcastTypes.contains($0) }
    }

    func newest(_ client: Client, _ account: Account) throws -> String {
        let result = try client.send("GET", "/events", token: account.token)
        return try #require((result.json["next"] as? NSNumber)?.stringValue)
    }

    @Test func theIPadStreamSeesTheSessionThePhoneStartedAndThePhoneStreamDoesNot() throws {
        let client = Transport.socket.client
        let (phone, iPad) = try client.registerOnTwoDevices("ada")
        let phoneStream = try stream(phone), iPadStream = try stream(iPad)
        #expect(phoneStream.status == 200 && iPadStream.status == 200)

        let started = try client.send("POST", "/focus-sessions/start", token: phone.token, json: #"{"planned_minutes":25}"#)
        #expect(started.status == 201)
        let sessionID = try #require((started.json["session"] as? [String: Any])?["id"] as? String)
        let event = try #require(try iPadStream.next(timeout: 10), "the iPad's stream shows nothing within 10 s")
        #expect(event.type == "session.started")
        #expect(event.json["data"] as? [String: String] == ["session_id": sessionID], "the session's id, nothing more")
        try grant(phone, 1)
        #expect(try untilBalance(phoneStream) == ["balance.changed"], "the phone's own stream skips its own session.started")
        #expect(try untilBalance(iPadStream) == ["balance.changed"])

        // The other way round: the iPad abandons it, the phone hears it.
        let abandoned = try client.send("POST", "/focus-sessions/\(sessionID)/abandon", token: iPad.token)
        #expect(abandoned.status == 200)
        try grant(phone, 1)
        #expect(try untilBalance(phoneStream) == ["session.abandoned", "balance.changed"])
        #expect(try untilBalance(iPadStream) == ["balance.changed"], "the iPad's own stream skips its abandon")
    }

    @Test func longPollsTellEachDeviceWhatTheOtherDid() throws {
        let client = Transport.inProcess.client
        let (phone, iPad) = try client.registerOnTwoDevices("ada")
        let bo = try client.register("bo")
        let item = try #require(
            try TestEnvironment.scalar("select id from app.shop_items where name = 'Pip the Fox'"))
        let kind = try #require(try TestEnvironment.scalar("select kind from app.shop_items where id = $1", [item]))
        try grant(phone, 10_000)
        let before = try newest(client, phone)

        #expect(try client.send("POST", "/focus-sessions/start", token: phone.token, json: #"{"planned_minutes":25}"#).status == 201)
        #expect(try client.send("POST", "/shop/purchases", token: phone.token, json: #"{"item_id":"\#(item)"}"#).status == 201)
        #expect(try client.send("PUT", "/me/selected/\(kind)", token: phone.token, json: #"{"item_id":"\#(item)"}"#).status == 200)
        #expect(try client.send("PATCH", "/me", token: phone.token, json: #"{"display_name":"Ada L"}"#).status == 200)
        #expect(
            try client.send("PATCH", "/me", token: phone.token, json: #"{"settings":{"show_tip_on_timer":false}}"#).status == 200)
        #expect(try client.send("POST", "/users/\(bo.id)/block", token: phone.token).status == 204)
        #expect(try client.send("DELETE", "/users/\(bo.id)/block", token: phone.token).status == 204)

        let told = try polled(client, iPad, after: before)
        #expect(
            told.filter { $0 != "balance.changed" } == [
                "session.started", "item.acquired", "selection.changed", "profile.changed", "settings.changed",
                "block.added", "block.removed",
            ])
        #expect(try polled(client, phone, after: before).allSatisfy { $0 == "balance.changed" }, "the phone hears only balances")

        // What the iPad does, the phone hears.
        let afterPhone = try newest(client, iPad)
        #expect(try client.send("PATCH", "/me", token: iPad.token, json: #"{"bio":"Two devices"}"#).status == 200)
        #expect(try polled(client, phone, after: afterPhone) == ["profile.changed"])
        #expect(try polled(client, iPad, after: afterPhone).isEmpty)
    }

    @Test func aPersonOnOneDeviceWritesNoSuchEvents() throws {
        let client = Transport.inProcess.client
        let solo = try client.register("solo")
        #expect(try client.send("POST", "/focus-sessions/start", token: solo.token, json: #"{"planned_minutes":25}"#).status == 201)
        #expect(try client.send("PATCH", "/me", token: solo.token, json: #"{"display_name":"Solo S"}"#).status == 200)
        #expect(try TestEnvironment.scalar("select count(*) from app.events where user_id = $1::uuid", [solo.id]) == "0")
    }

    @Test func aRefusedChangeTellsNoDevice() throws {
        let client = Transport.inProcess.client
        let (phone, _) = try client.registerOnTwoDevices("ada")
        let count = try TestEnvironment.scalar("select count(*) from app.events where user_id = $1::uuid", [phone.id])
        #expect(try client.send("POST", "/users/\(phone.id)/block", token: phone.token).status == 422)
        #expect(try client.send("PATCH", "/me", token: phone.token, json: #"{"display_name":42}"#).status == 400)
        #expect(try client.send("PATCH", "/me", token: phone.token, json: #"{"display_name":"#).status == 400)
        #expect(
            try TestEnvironment.scalar("select count(*) from app.events where user_id = $1::uuid", [phone.id]) == count,
            "nothing written")
    }
}

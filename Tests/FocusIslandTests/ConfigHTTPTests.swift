import Foundation
import Testing

// Release controls end to end: GET /config from the settings rows, a DBA's update served at
// once (the listener empties the cache on config.changed), X-Client-Version admission (426),
// maintenance (503), finish at a stated ended_at, a time zone at sign-up. Serialized: these
// tests change rows every request reads. The changes other suites could see are confined:
// the iOS minimum holds only requests that send an iOS X-Client-Version (no other test does),
// the earning threshold moves between values no other test's session length falls between,
// and maintenance is read from a rolled-back transaction into a pipeline of this test's own.
@testable import FocusIsland

@Suite(.serialized) struct ConfigHTTPTests {
    /// Runs `sql` as the owner (a DBA) and returns once this server's listener has heard the
    /// config.changed it wrote: a stream opened before the change receives the event only after
    /// the listener emptied the cache (Listener.deliver), so the next request reads the new rows.
    func dbaUpdate(_ sql: String) throws {
        let watcher = try Transport.socket.client.register("watcher")
        let stream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: watcher.token)
        #expect(stream.status == 200)
        try TestEnvironment.owner().execute(sql)
        while let event = try stream.next(timeout: 30) {
            if event.type == "config.changed" { return }
        }
        Issue.record("no config.changed within 30 s after: \(sql)")
    }

    func config(_ transport: Transport, headers: [String: String] = [:]) throws -> HTTPResult {
        try transport.client.send("GET", "/config", headers: headers)
    }

    @Test(arguments: Transport.allCases)
    func configIsPublicETaggedAndNamesTheContractsVersion(transport: Transport) throws {
        let first = try config(transport)
        #expect(first.status == 200)
        let tag = try #require(first.header("ETag"))
        #expect(first.header("Cache-Control") == "no-cache")
        let again = try config(transport, headers: ["If-None-Match": tag])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(try config(transport, headers: ["If-None-Match": "\"config-0\""]).status == 200)

        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.openAPIPath)))
        let info = (document as? [String: Any])?["info"] as? [String: Any]
        #expect(first.json["api_version"] as? String == info?["version"] as? String)
        let platforms = first.json["platforms"] as? [String: Any]
        #expect(Set((platforms ?? [:]).keys).isSuperset(of: ["ios", "android"]))
        let economy = first.json["economy"] as? [String: Any]
        #expect(
            economy?["min_minutes_to_earn"] as? Int
                == Int(try TestEnvironment.scalar("select min_minutes_to_earn from app.economy_settings") ?? ""))
        // A malformed X-Client-Version does not keep an app from reading what to do.
        #expect(try config(transport, headers: ["X-Client-Version": "ios"]).status == 200)
    }

    /// With the iOS minimum at 1.3.0: ios/1.2.9 gets 426 on /me and 200 on /config, ios/1.3.0
    /// and no header get 200; account deletion and export stay open to the old app.
    @Test func anAppBelowItsPlatformsMinimumMustUpgrade() throws {
        let original = try #require(
            try TestEnvironment.scalar("select min_version || ' ' || latest_version from app.client_platforms where platform = 'ios'"))
        let parts = original.split(separator: " ")
        try dbaUpdate("update app.client_platforms set min_version = '1.3.0', latest_version = '1.4.0' where platform = 'ios'")
        defer {
            try? dbaUpdate(
                "update app.client_platforms set min_version = '\(parts[0])', latest_version = '\(parts[1])' where platform = 'ios'")
        }
        let storeURL = try TestEnvironment.scalar("select store_url from app.client_platforms where platform = 'ios'")
        for transport in Transport.allCases {
            let client = transport.client
            let account = try client.register("old-app")
            let old = try client.send("GET", "/me", token: account.token, headers: ["X-Client-Version": "ios/1.2.9"])
            #expect(old.status == 426 && old.code == "upgrade_required", "\(transport)")
            #expect(old.header("Content-Type") == "application/problem+json")
            #expect(old.json["store_url"] as? String == storeURL && old.json["min_version"] as? String == "1.3.0")
            #expect(old.json["platform"] as? String == "ios")
            let shown = try config(transport, headers: ["X-Client-Version": "ios/1.2.9"])
            #expect(shown.status == 200)
            #expect(((shown.json["platforms"] as? [String: Any])?["ios"] as? [String: Any])?["min_version"] as? String == "1.3.0")
            for header in ["ios/1.3.0", "ios/1.3", "iOS/1.10.0", "android/1.0.0", "web/0.1"] {
                let answer = try client.send("GET", "/me", token: account.token, headers: ["X-Client-Version": header])
                #expect(answer.status == 200, "\(transport) \(header)")
            }
            #expect(try client.send("GET", "/me", token: account.token).status == 200, "no header: the web pages and the CLI")
            // A public route and a write are held too; nothing was written.
            #expect(try client.send("GET", "/shop/items", headers: ["X-Client-Version": "ios/1.2.9"]).status == 426)
            let start = try client.send(
                "POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#,
                headers: ["X-Client-Version": "ios/1.2"])
            #expect(start.status == 426)
            #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "0")
            // What must always work: health, export, account deletion.
            #expect(try client.send("GET", "/health", headers: ["X-Client-Version": "ios/1.2.9"]).status == 200)
            let export = try client.send("GET", "/me/export", token: account.token, headers: ["X-Client-Version": "ios/1.2.9"])
            #expect(export.status == 200)
            let deleted = try client.send(
                "DELETE", "/me", token: account.token, json: #"{"password":"correct horse"}"#,
                headers: ["X-Client-Version": "ios/1.2.9"])
            #expect(deleted.status == 204)
        }
    }

    @Test(arguments: Transport.allCases)
    func aMalformedClientVersionIs400AndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("malformed-version")
        for header in ["ios", "ios/", "/1.0", "ios/1.2.3.4", "ios/v1.2", "ios/1.2.9 (45)", "ios/1..2", "i os/1.0", "ios/123456"] {
            let me = try client.send("GET", "/me", token: account.token, headers: ["X-Client-Version": header])
            #expect(me.status == 400 && me.code == "invalid_field", "\(header)")
            #expect(me.json["field"] as? String == "X-Client-Version", "\(header)")
        }
        let start = try client.send(
            "POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#,
            headers: ["X-Client-Version": "android/one"])
        #expect(start.status == 400)
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "0")
        // Admission comes before the token: an old app without one still learns to upgrade,
        // and a missing token with a good header is the usual 401.
        #expect(try client.send("GET", "/me", headers: ["X-Client-Version": "ios/9.0.0"]).status == 401)
    }

    /// Maintenance, from the real rows in a transaction that is rolled back (the flag would
    /// stop every other suite), held by a pipeline of this test's own that admits by it.
    @Test func maintenanceAnswers503WithRetryAfterExceptWhatMustAlwaysWork() throws {
        let owner = try TestEnvironment.owner()
        try owner.execute("begin")
        try owner.execute(
            "update app.release_settings set maintenance = true, maintenance_message = 'Back at noon.', retry_after_seconds = 120")
        try owner.execute("update app.client_platforms set min_version = '1.3.0', latest_version = '1.3.0' where platform = 'ios'")
        let body = try #require(try owner.execute("select body::text from api.config_get(null, '{}', '{}')").first?.first ?? nil)
        try owner.execute("rollback")
        let controls = try #require(ReleaseControls(configBody: Array(body.utf8)))
        #expect(controls.maintenance == ReleaseControls.Maintenance(message: "Back at noon.", retryAfterSeconds: 120))

        let cache = SharedCache()
        cache.setListening(true)
        guard case .miss(let generation) = cache.lookupControls() else {
            Issue.record("an empty cache holds controls")
            return
        }
        cache.storeControls(controls, generation: generation)
        let pipeline = try TestServer.pipeline().with(cache: cache)
        let account = try Transport.inProcess.client.register("maintenance")
        func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) -> Response {
            var all = headers.merging(["Authorization": "Bearer \(account.token)"]) { $1 }
            if body != nil { all["Content-Type"] = "application/json" }
            return pipeline.respond(to: Request(method: method, path: path, headers: all, body: Array((body ?? "").utf8)))
        }
        let me = send("GET", "/me")
        #expect(me.status == 503 && me.header("Retry-After") == "120")
        let problem = (try? JSONSerialization.jsonObject(with: Data(me.body))) as? [String: Any]
        #expect(problem?["code"] as? String == "maintenance" && problem?["detail"] as? String == "Back at noon.")
        #expect(problem?["retry_after_seconds"] as? Int == 120)
        #expect(send("POST", "/auth/login", body: #"{"email":"\#(account.email)","password":"correct horse"}"#).status == 503)
        #expect(send("GET", "/me", headers: ["X-Client-Version": "ios/1.2.0"]).status == 426, "updating comes first")
        #expect(send("GET", "/config").status == 200)
        #expect(send("GET", "/health").status == 200)
        #expect(send("GET", "/ready").status == 200)
        #expect(send("GET", "/me/export").status == 200)
        #expect(send("DELETE", "/me", body: #"{"password":"correct horse"}"#).status == 204)
        // The server's own pipeline never saw the flag.
        #expect(try Transport.inProcess.client.send("GET", "/shop/items").status == 200)
    }

    /// Raising the earning threshold in SQL changes GET /config, its ETag, and what a
    /// 12-minute session earns (10 → 13 and back: no other suite records 10 to 12 minutes).
    @Test func raisingTheEarningThresholdChangesConfigItsETagAndWhatTwelveMinutesEarn() throws {
        let original = try #require(try TestEnvironment.scalar("select min_minutes_to_earn from app.economy_settings"))
        let client = Transport.socket.client
        let account = try client.register("threshold")
        let now = try TestEnvironment.databaseNow()
        func record(hoursAgo: Double) throws -> Int? {
            let start = now - hoursAgo * 3600
            let body = #"{"id":"\#(UUID().uuidString)","started_at":"\#(start.rfc3339)","ended_at":"\#((start + 720).rfc3339)"}"#
            let result = try client.send("POST", "/focus-sessions", token: account.token, json: body)
            return (result.json["session"] as? [String: Any])?["coins_earned"] as? Int
        }
        let before = try config(.socket)
        #expect(try record(hoursAgo: 3) == (Int(original) ?? 0 <= 12 ? 12 : 0))

        try dbaUpdate("update app.economy_settings set min_minutes_to_earn = 13")
        defer { try? dbaUpdate("update app.economy_settings set min_minutes_to_earn = \(original)") }
        let after = try config(.socket)
        #expect((after.json["economy"] as? [String: Any])?["min_minutes_to_earn"] as? Int == 13)
        #expect(after.header("ETag") != nil && after.header("ETag") != before.header("ETag"))
        #expect(try config(.inProcess, headers: ["If-None-Match": before.header("ETag") ?? ""]).status == 200)
        #expect(try record(hoursAgo: 2) == 0, "12 minutes no longer reach the threshold")
    }

    /// A live session finished with an ended_at 15 minutes in earns 15 minutes; out-of-range and
    /// malformed times are refused and leave it running.
    @Test(arguments: Transport.allCases)
    func aLiveSessionFinishedAtAStatedEndEarnsItsRealMinutes(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("ended-at")
        let other = try client.register("ended-at-other")
        let started = try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":30}"#)
        #expect(started.status == 201)
        let id = try #require((started.json["session"] as? [String: Any])?["id"] as? String)
        // Started 40 minutes ago (moved back by SQL: the test cannot wait 40 minutes).
        try TestEnvironment.owner().execute(
            """
            update app.focus_sessions set started_at = started_at - interval '40 minutes',
                occupies = tstzrange(lower(occupies) - interval '40 minutes', upper(occupies) - interval '40 minutes')
            where id = $1
            """, [id])
        let start = try #require(
            try TestEnvironment.scalar("select extract(epoch from started_at) from app.focus_sessions where id = $1", [id])
                .flatMap(Double.init))
        let startDate = Date(timeIntervalSince1970: start)
        let finish = "/focus-sessions/\(id)/finish"

        let refused: [(String?, String, String?, Int, String)] = [
            (account.token, #"{"ended_at":"\#(startDate.rfc3339)"}"#, "application/json", 422, "invalid_session"),
            (account.token, #"{"ended_at":"\#((startDate - 60).rfc3339)"}"#, "application/json", 422, "invalid_session"),
            (account.token, #"{"ended_at":"\#((startDate + 3 * 3600).rfc3339)"}"#, "application/json", 422, "invalid_session"),
            (account.token, #"{"ended_at":"soon"}"#, "application/json", 400, "invalid_field"),
            (account.token, #"{"ended_at":15}"#, "application/json", 400, "invalid_field"),
            (account.token, #"{"ended_at":"#, "application/json", 400, "invalid_json"),
            (account.token, #"{"end":"2026-12-01T10:00:00Z"}"#, "application/json", 400, "invalid_field"),
            (account.token, #"{"ended_at":"\#((startDate + 900).rfc3339)"}"#, "text/plain", 415, "unsupported_media_type"),
            (other.token, #"{"ended_at":"\#((startDate + 900).rfc3339)"}"#, "application/json", 404, "session_not_found"),
            (nil, #"{"ended_at":"\#((startDate + 900).rfc3339)"}"#, "application/json", 401, "unauthorized"),
        ]
        for (token, body, type, status, code) in refused {
            let answer = try client.send("POST", finish, token: token, body: Array(body.utf8), headers: ["Content-Type": type ?? ""])
            #expect(answer.status == status && answer.code == code, "\(body) \(type ?? "")")
        }
        let unknown = try client.send(
            "POST", "/focus-sessions/\(UUID().uuidString)/finish", token: account.token,
            json: #"{"ended_at":"\#((startDate + 900).rfc3339)"}"#)
        #expect(unknown.status == 404 && unknown.code == "session_not_found")
        #expect(try TestEnvironment.scalar("select ended_at is null from app.focus_sessions where id = $1", [id]) == "t")
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "0")

        let finished = try client.send("POST", finish, token: account.token, json: #"{"ended_at":"\#((startDate + 900).rfc3339)"}"#)
        #expect(finished.status == 200)
        let session = finished.json["session"] as? [String: Any]
        #expect(session?["minutes"] as? Int == 15 && session?["coins_earned"] as? Int == 15)
        #expect(finished.json["balance"] as? Int == 15 + 10, "15 coins earned and first_session's reward")
        // Finishing again (no body, as older apps do) answers the same session.
        let again = try client.send("POST", finish, token: account.token)
        #expect(again.status == 200 && (again.json["session"] as? [String: Any])?["minutes"] as? Int == 15)
    }

    @Test(arguments: Transport.allCases)
    func registerTakesAnOptionalTimeZone(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("zoned")
        let zoned = try client.send(
            "POST", "/auth/register",
            json: #"{"email":"\#(email)","password":"correct horse","display_name":"Zoned","time_zone":"Asia/Tokyo"}"#)
        #expect(zoned.status == 201)
        #expect(((zoned.json["user"] as? [String: Any])?["settings"] as? [String: Any])?["time_zone"] as? String == "Asia/Tokyo")
        let refusedEmail = TestEnvironment.email("unzoned")
        for zone in [#""Mars/Olympus""#, "9", #""""#, "null"] {
            let refused = try client.send(
                "POST", "/auth/register",
                json: #"{"email":"\#(refusedEmail)","password":"correct horse","display_name":"Unzoned","time_zone":\#(zone)}"#)
            #expect(refused.status == (zone == "null" ? 201 : 400), "\(zone)")
            if refused.status == 201 { break }
            #expect(refused.code == "invalid_field" && refused.json["field"] as? String == "time_zone")
        }
        #expect(try TestEnvironment.scalar("select time_zone from app.users where email = $1", [refusedEmail]) == "UTC")
    }
}

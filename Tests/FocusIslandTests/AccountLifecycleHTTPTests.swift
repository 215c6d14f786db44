// The account lifecycle end to end: deletion, export, password and email changes, password
// reset, devices, blocks and reports, local days. Each case in-process and over a socket.
import Foundation
import Testing

@Suite struct AccountLifecycleHTTPTests {
    /// Every text-like column of every table in app that holds `needle` (any case), as table.column.
    static func columnsHolding(_ needle: String) throws -> String {
        try TestEnvironment.scalar(
            """
            with text_columns as materialized (  -- listed first, so the scan below never runs on another schema
                select c.table_name::text as table_name, c.column_name::text as column_name
                from information_schema.columns c
                join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
                where c.table_schema = 'app' and t.table_type = 'BASE TABLE'
                  and (c.data_type in ('text', 'character varying', 'jsonb', 'json') or c.udt_name = 'citext'))
            select coalesce(string_agg(c.table_name || '.' || c.column_name, ',' order by 1), '')
            from text_columns c
            where (xpath('/row/n/text()', query_to_xml(format('select count(*) as n from app.%I where %I::text ilike %L',
                   c.table_name, c.column_name, '%' || $1 || '%'), false, true, '')))[1]::text::integer > 0
            """, [needle]) ?? "?"
    }

    static func userRow(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [account.id])
    }

    @Test(arguments: Transport.allCases)
    func deletingTheAccountLeavesNoPersonalDataAndTheLedgerReconciles(transport: Transport) throws {
        let client = transport.client
        let name = "Gone\(UInt32.random(in: 0 ... .max))"
        let account = try client.register(name)
        let friend = try client.register("pal")
        #expect(try client.send("POST", "/friend-requests", token: account.token, json: #"{"email":"\#(friend.email)"}"#).status == 201)
        _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 300, 'deletion test')", [account.id])
        let fox = try #require(try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Pip the Fox'"))
        #expect(try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(fox)"}"#).status == 201)
        let before = try Self.userRow(account)

        let wrong = try client.send("DELETE", "/me", token: account.token, json: #"{"password":"wrong horse"}"#)
        #expect(wrong.status == 403 && wrong.code == "wrong_password")
        #expect(try Self.userRow(account) == before)
        let missing = try client.send("DELETE", "/me", token: account.token, json: "{}")
        #expect(missing.status == 400 && missing.code == "invalid_field")
        #expect(try Self.userRow(account) == before)
        #expect(try client.send("GET", "/me", token: account.token).status == 200)

        let deleted = try client.send("DELETE", "/me", token: account.token, json: #"{"password":"correct horse"}"#)
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        let old = try client.send("GET", "/me", token: account.token)
        #expect(old.status == 401 && old.code == "unauthorized")
        #expect(try Self.columnsHolding(account.email) == "")
        #expect(try Self.columnsHolding(name) == "")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
        #expect(try TestEnvironment.scalar("select display_name from app.users where id = $1", [account.id]) == "Deleted user")
        #expect(try client.send("GET", "/friend-requests", token: friend.token).decode(FriendRequests.self).incoming.isEmpty)

        let again = try client.send(
            "POST", "/auth/register",
            json: #"{"email":"\#(account.email)","password":"correct horse","display_name":"Back"}"#)
        #expect(again.status == 201)
        #expect(try again.decode(AuthReply.self).user.id != account.id)
    }

    /// A purchase racing the deletion of its buyer ends as one of the two, never half.
    @Test(arguments: Transport.allCases)
    func aPurchaseRacingTheDeletionEndsAsOneOfTheTwo(transport: Transport) throws {
        let client = transport.client
        let fox = try #require(try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Pip the Fox'"))
        for _ in 0..<4 {
            let account = try client.register("racer")
            _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 300, 'race test')", [account.id])
            let statuses = try concurrently(2) { index in
                index == 0
                    ? try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(fox)"}"#).status
                    : try client.send("DELETE", "/me", token: account.token, json: #"{"password":"correct horse"}"#).status
            }
            #expect(statuses[1] == 204)
            #expect([201, 401].contains(statuses[0]))
            let spent = try TestEnvironment.scalar(
                """
                select count(*) from app.coin_ledger where user_id = $1 and entry = 'spend'
                """, [account.id])
            let owned = try TestEnvironment.scalar(
                "select count(*) from app.user_items where user_id = $1 and item_id = $2",
                [account.id, fox])
            #expect(spent == (statuses[0] == 201 ? "1" : "0"))
            #expect(owned == spent)
            #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
            #expect(try TestEnvironment.scalar("select deleted_at is not null from app.users where id = $1", [account.id]) == "t")
        }
    }

    @Test(arguments: Transport.allCases)
    func changingThePasswordNeedsTheOldOneAndEndsOtherTokens(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("pw")
        let other = try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"correct horse"}"#)
            .decode(AuthReply.self).token
        let before = try Self.userRow(account)

        let wrong = try client.send(
            "POST", "/me/password", token: account.token,
            json: #"{"current_password":"wrong horse","new_password":"brand new horse"}"#)
        #expect(wrong.status == 403 && wrong.code == "wrong_password")
        #expect(try Self.userRow(account) == before)
        #expect(try client.send("GET", "/me", token: other).status == 200)
        let weak = try client.send(
            "POST", "/me/password", token: account.token,
            json: #"{"current_password":"correct horse","new_password":"short"}"#)
        #expect(weak.status == 400 && weak.code == "weak_password")
        #expect(try Self.userRow(account) == before)

        let changed = try client.send(
            "POST", "/me/password", token: account.token,
            json: #"{"current_password":"correct horse","new_password":"brand new horse"}"#)
        #expect(changed.status == 204)
        #expect(try client.send("GET", "/me", token: other).status == 401)
        #expect(try client.send("GET", "/me", token: account.token).status == 200)
        #expect(try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"brand new horse"}"#).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func changingTheEmailNeedsThePasswordAndTakesEffectOnceVerified(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("mail"), taken = try client.register("taken")
        let before = try Self.userRow(account)
        let newEmail = TestEnvironment.email("moved")

        let wrong = try client.send("POST", "/me/email", token: account.token, json: #"{"password":"wrong horse","email":"\#(newEmail)"}"#)
        #expect(wrong.status == 403 && wrong.code == "wrong_password")
        #expect(try Self.userRow(account) == before)
        let invalid = try client.send("POST", "/me/email", token: account.token, json: #"{"password":"correct horse","email":"nope"}"#)
        #expect(invalid.status == 400 && invalid.code == "invalid_email")
        #expect(try Self.userRow(account) == before)
        // Another account's address answers as a free one: the change waits, its owner gets a notice.
        let clash = try client.send(
            "POST", "/me/email", token: account.token,
            json: #"{"password":"correct horse","email":"\#(taken.email.uppercased())"}"#)
        #expect(clash.status == 200 && clash.json["pending_email"] as? String == taken.email.uppercased())
        #expect(clash.json["email"] as? String == account.email)

        let moved = try client.send(
            "POST", "/me/email", token: account.token, json: #"{"password":"correct horse","email":"\#(newEmail)"}"#)
        #expect(moved.status == 200)
        #expect(moved.json["email"] as? String == account.email && moved.json["pending_email"] as? String == newEmail)
        #expect(try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"correct horse"}"#).status == 200)
        let code = try #require(try AccountSafetyHTTPTests.mailedCode(newEmail))
        let verified = try client.send("POST", "/me/email/verify", token: account.token, json: #"{"code":"\#(code)"}"#)
        #expect(verified.status == 200)
        #expect(try verified.decode(Profile.self).email == newEmail)
        #expect(try client.send("POST", "/auth/login", json: #"{"email":"\#(newEmail)","password":"correct horse"}"#).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func passwordResetByMailedCode(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("reset")
        let known = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#)
        let unknown = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(TestEnvironment.email("nobody"))"}"#)
        #expect(known.status == 202 && unknown.status == 202)
        #expect(known.body == unknown.body && known.body.isEmpty)
        #expect(known.header("Content-Type") == unknown.header("Content-Type"))
        let code = try #require(try AccountSafetyHTTPTests.resetCode(account.email))

        func confirm(_ code: String, _ password: String = "reset horse 1") throws -> HTTPResult {
            try client.send(
                "POST", "/auth/password-reset/confirm",
                json: #"{"email":"\#(account.email)","code":"\#(code)","new_password":"\#(password)"}"#)
        }
        let before = try Self.userRow(account)
        let wrong = try confirm(code == "00000000" ? "11111111" : "00000000")
        #expect(wrong.status == 400 && wrong.code == "invalid_reset_code")
        #expect(try Self.userRow(account) == before)
        #expect(try TestEnvironment.scalar("select count(*) from app.login_failures where email = $1", [account.email]) == "1")

        let confirmed = try confirm(code)
        #expect(confirmed.status == 200)
        let fresh = try confirmed.decode(AuthReply.self).token
        #expect(try client.send("GET", "/me", token: fresh).status == 200)
        #expect(try client.send("GET", "/me", token: account.token).status == 401)
        let reused = try confirm(code, "another horse")
        #expect(reused.status == 400 && reused.code == "invalid_reset_code")

        #expect(try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#).status == 202)
        let second = try #require(try AccountSafetyHTTPTests.resetCode(account.email))
        try TestEnvironment.owner().execute(
            """
            update app.password_resets set created_at = now() - interval '20 minutes', expires_at = now() - interval '5 minutes'
            where digest = sha256(convert_to($1, 'UTF8'))
            """, [second])
        let expired = try confirm(second)
        #expect(expired.status == 400 && expired.code == "invalid_reset_code")
        #expect(try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"reset horse 1"}"#).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func devicesAreListedAndEndedOneByOne(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("devices"), stranger = try client.register("stranger")
        let phone = try client.send(
            "POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"correct horse"}"#,
            headers: ["User-Agent": "FocusIsland/2.1 (iPhone)"]
        ).decode(AuthReply.self).token
        let listed = try client.send("GET", "/me/tokens", token: account.token)
        #expect(listed.status == 200)
        let tokens = try #require(listed.json["tokens"] as? [[String: Any]])
        #expect(tokens.count == 2)
        let phoneEntry = try #require(tokens.first { $0["label"] as? String == "FocusIsland/2.1 (iPhone)" })
        let phoneID = try #require(phoneEntry["id"] as? String)
        #expect(phoneEntry["current"] as? Bool == false)
        #expect(tokens.filter { $0["current"] as? Bool == true }.count == 1)

        let foreign = try client.send("DELETE", "/me/tokens/\(phoneID)", token: stranger.token)
        #expect(foreign.status == 404 && foreign.code == "token_not_found")
        #expect(try client.send("GET", "/me", token: phone).status == 200)
        let malformed = try client.send("DELETE", "/me/tokens/nope", token: account.token)
        #expect(malformed.status == 400 && malformed.code == "invalid_field")

        #expect(try client.send("DELETE", "/me/tokens/\(phoneID)", token: account.token).status == 204)
        #expect(try client.send("GET", "/me", token: phone).status == 401)
        #expect(try client.send("DELETE", "/me/tokens/\(phoneID)", token: account.token).code == "token_not_found")
    }

    @Test(arguments: Transport.allCases)
    func exportHoldsEverythingAboutTheCaller(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("export")
        let export = try client.send("GET", "/me/export", token: account.token)
        #expect(export.status == 200)
        #expect(
            Set(export.json.keys) == [
                "avatar", "blocks", "exported_at", "friendships", "items", "ledger", "password_resets",
                "profile", "reports_made", "sessions", "tips_shown", "tokens",
            ])
        #expect((export.json["profile"] as? [String: Any])?["email"] as? String == account.email)
        #expect((export.json["items"] as? [Any])?.count == 3)
    }

    @Test(arguments: Transport.allCases)
    func aBlockedUsersRequestAnswersAsAnUnknownEmail(transport: Transport) throws {
        let client = transport.client
        let blocker = try client.register("blocker"), blocked = try client.register("blocked")
        #expect(try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(blocker.email)"}"#).status == 201)

        let block = try client.send("POST", "/users/\(blocked.id)/block", token: blocker.token)
        #expect(block.status == 204)
        #expect(try client.send("GET", "/friend-requests", token: blocker.token).decode(FriendRequests.self).incoming.isEmpty)
        let asked = try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(blocker.email)"}"#)
        let unknown = try client.send(
            "POST", "/friend-requests", token: blocked.token,
            json: #"{"email":"\#(TestEnvironment.email("ghost"))"}"#)
        #expect(asked.status == 404 && asked.code == "user_not_found")
        #expect(asked.status == unknown.status && asked.body == unknown.body)
        let back = try client.send("POST", "/friend-requests", token: blocker.token, json: #"{"email":"\#(blocked.email)"}"#)
        #expect(back.status == 409 && back.code == "user_blocked")
        let own = try client.send("POST", "/users/\(blocker.id)/block", token: blocker.token)
        #expect(own.status == 422 && own.code == "cannot_block_self")

        let blocks = try client.send("GET", "/me/blocks", token: blocker.token)
        #expect(
            (blocks.json["blocks"] as? [[String: Any]])?.compactMap { ($0["user"] as? [String: Any])?["id"] as? String } == [blocked.id])
        #expect(try client.send("DELETE", "/users/\(blocked.id)/block", token: blocker.token).status == 204)
        let again = try client.send("DELETE", "/users/\(blocked.id)/block", token: blocker.token)
        #expect(again.status == 404 && again.code == "block_not_found")
        #expect(try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(blocker.email)"}"#).status == 201)
    }

    @Test(arguments: Transport.allCases)
    func reportsReachTheModerators(transport: Transport) throws {
        let client = transport.client
        let reporter = try client.register("reporter"), rude = try client.register("rude")
        let bad = try client.send("POST", "/users/\(rude.id)/report", token: reporter.token, json: #"{"reason":"boring"}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
        let own = try client.send("POST", "/users/\(reporter.id)/report", token: reporter.token, json: #"{"reason":"spam"}"#)
        #expect(own.status == 422 && own.code == "cannot_report_self")
        let nobody = try client.send("POST", "/users/\(UUID().uuidString)/report", token: reporter.token, json: #"{"reason":"spam"}"#)
        #expect(nobody.status == 404 && nobody.code == "user_not_found")
        #expect(try TestEnvironment.scalar("select count(*) from app.user_reports where reporter = $1", [reporter.id]) == "0")

        let made = try client.send(
            "POST", "/users/\(rude.id)/report", token: reporter.token,
            json: #"{"reason":"harassment","details":"rude messages"}"#)
        #expect(made.status == 201)
        let report = try #require(made.json["report"] as? [String: Any])
        #expect(report["user_id"] as? String == rude.id && report["reason"] as? String == "harassment")
        #expect(
            try TestEnvironment.scalar(
                "select reason || ':' || details from report.user_reports where reported_user_id = $1",
                [rude.id]) == "harassment:rude messages")
    }

    /// A user in Pacific/Kiritimati (UTC+14) and one in Pacific/Pago_Pago (UTC-11) each see
    /// their own today: sessions end at each one's local day start and just before it.
    @Test(arguments: Transport.allCases)
    func eachUserSeesTheirOwnToday(transport: Transport) throws {
        let client = transport.client
        let bad = try client.register("zone")
        let refused = try client.send("PATCH", "/me", token: bad.token, json: #"{"settings":{"time_zone":"Mars/Olympus_Mons"}}"#)
        #expect(refused.status == 400 && refused.code == "invalid_field")
        #expect(try TestEnvironment.scalar("select time_zone from app.users where id = $1", [bad.id]) == "UTC")

        for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago"] {
            let account = try client.register("zone")
            let patched = try client.send("PATCH", "/me", token: account.token, json: #"{"settings":{"time_zone":"\#(zone)"}}"#)
            #expect(patched.status == 200)
            #expect((patched.json["settings"] as? [String: Any])?["time_zone"] as? String == zone)
            // Read within the local day the fixture was built for (run again if it ended meanwhile).
            let localDay = "select date_trunc('day', now() at time zone $1)::text"
            var stats: Stats?
            for _ in 1...3 where stats == nil {
                let day = try TestEnvironment.scalar(localDay, [zone])
                try TestEnvironment.owner().execute("delete from app.focus_sessions where user_id = $1", [account.id])
                try TestEnvironment.owner().execute(
                    """
                    insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
                    select gen_random_uuid(), $1::uuid, 'offline', e - make_interval(mins => m), e, tstzrange(e - make_interval(mins => m), e), m
                    from (select date_trunc('day', now() at time zone $2) at time zone $2 as start) d,
                         lateral (values (d.start, 30), (d.start - interval '31 minutes', 20)) s(e, m)
                    """, [account.id, zone])
                let read = try client.send("GET", "/me/stats", token: account.token).decode(Stats.self)
                if try TestEnvironment.scalar(localDay, [zone]) == day { stats = read }
            }
            #expect(stats?.todayMinutes == 30, "\(zone)")
            #expect(stats?.currentStreakDays == 2, "\(zone)")
        }
    }
}

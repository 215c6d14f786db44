// The account lifecycle end to end: deletion, export, password and email changes, password
// reset, devices, blocks and reports, local days. Each case in-process and over a socket.
import Foundation
import Testing

@Suite struct AccountLifecycleHTTPTests {
    /// Every column of every table (ordinary, partitioned, materialized) in every schema but the
    /// system's and pgTAP's helpers that holds one of `needles`, as schema.table.column, found
    /// from the catalog so a column added later is scanned without being named: bytea by its
    /// bytes, any other type by its text (any letter case), text, jsonb and inet included.
    static func columnsHolding(_ needles: [String]) throws -> String {
        try TestEnvironment.scalar(
            """
            with columns as materialized (  -- listed first, so the scans below see only these
                select n.nspname::text as schema_name, c.relname::text as table_name, a.attname::text as column_name,
                       coalesce(nullif(t.typbasetype, 0), t.oid) = 'bytea'::regtype as is_bytea
                from pg_class c
                join pg_namespace n on n.oid = c.relnamespace
                join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                join pg_type t on t.oid = a.atttypid
                where c.relkind in ('r', 'p', 'm') and not c.relispartition  -- read through their table
                  and n.nspname not in ('pg_catalog', 'information_schema', 'test')
                  and n.nspname !~ '^pg_(toast|temp_)')
            select coalesce(string_agg(c.schema_name || '.' || c.table_name || '.' || c.column_name, ',' order by 1), '')
            from columns c
            where (xpath('/row/n/text()', query_to_xml(format(
                       case when c.is_bytea
                            then 'select count(*) as n from %I.%I r, unnest(%L::text[]) x where position(convert_to(x, ''UTF8'') in r.%I) > 0'
                            else 'select count(*) as n from %I.%I r, unnest(%L::text[]) x where strpos(lower(r.%I::text), lower(x)) > 0' end,
                       c.schema_name, c.table_name, string_to_array($1, E'\\n'), c.column_name), false, true, '')))[1]::text::integer > 0
            """, [needles.joined(separator: "\n")]) ?? "?"
    }

    static func columnsHolding(_ needle: String) throws -> String { try columnsHolding([needle]) }

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

    /// A request from a client address of its own (in-process, where the test sets what the
    /// socket would): the server passes it to SQL as params.client_ip.
    static func send(
        _ method: String, _ target: String, from address: String, json: String, headers: [String: String] = [:]
    ) throws -> HTTPResult {
        var all = headers
        all["Content-Type"] = "application/json"
        var request = InProcess.request(method, target, headers: all, body: Array(json.utf8))
        request.clientAddress = address
        return InProcess.result(try TestServer.pipeline().respond(to: request), method: method)
    }

    /// An IPv6 documentation address (2001:db8::/32) no other test uses, in the text form
    /// PostgreSQL prints (four hex digits a group, none zero-led), so a scan can look for it.
    static func uniqueAddress() -> String {
        "2001:db8:" + (0..<6).map { _ in String(UInt16.random(in: 0x1000...0xffff), radix: 16) }.joined(separator: ":")
    }

    /// After DELETE /me, no column of any table holds any email the account had or asked for, its
    /// name or the addresses it signed in and failed from: its sign-in, failures, queued reset
    /// requests, a refused sign-up's count, verification codes and mail, stored Idempotency-Key
    /// answers under every email (sealed ones too), and a friend's stored answer naming it, gone.
    @Test(arguments: Transport.allCases)
    func deletionLeavesNoPersonalDataInAnyColumn(transport: Transport) throws {
        let client = transport.client
        let name = "Erased\(UInt32.random(in: 0 ... .max))"
        let account = try client.register(name)
        let friend = try client.register("pal")
        let signedIn = Self.uniqueAddress(), failedFrom = Self.uniqueAddress()
        let key = { (name: String) in ["Idempotency-Key": "\(name)-\(UUID().uuidString)"] }

        let login = try Self.send(
            "POST", "/auth/login", from: signedIn, json: #"{"email":"\#(account.email)","password":"correct horse"}"#, headers: key("in"))
        #expect(login.status == 200)
        let failed = try Self.send(
            "POST", "/auth/login", from: failedFrom, json: #"{"email":"\#(account.email)","password":"wrong horse"}"#, headers: key("bad"))
        #expect(failed.status == 401)
        let reset = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#, headers: key("reset"))
        #expect(reset.status == 202)
        let again = try Self.send(
            "POST", "/auth/register", from: failedFrom,
            json: #"{"email":"\#(account.email)","password":"correct horse","display_name":"\#(name)"}"#, headers: key("again"))
        #expect(again.status == 409)
        let newEmail = TestEnvironment.email("moved")
        let moved = try client.send(
            "POST", "/me/email", token: account.token, json: #"{"password":"correct horse","email":"\#(newEmail)"}"#, headers: key("move"))
        #expect(moved.status == 200)
        let code = try #require(try AccountSafetyHTTPTests.mailedCode(newEmail))
        let confirmed = try client.send(
            "POST", "/me/email/verify", token: account.token, json: #"{"code":"\#(code)"}"#, headers: key("code"))
        #expect(confirmed.status == 200)
        let failedNew = try Self.send(
            "POST", "/auth/login", from: failedFrom, json: #"{"email":"\#(newEmail)","password":"wrong horse"}"#, headers: key("bad"))
        #expect(failedNew.status == 401)
        #expect(try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(newEmail)"}"#, headers: key("reset")).status == 202)
        let asked = try client.send(
            "POST", "/friend-requests", token: friend.token, json: #"{"email":"\#(newEmail)"}"#, headers: key("ask"))
        #expect(asked.status == 201 && asked.text.contains(name))
        let bio = "Bio of \(name)"
        #expect(try client.send("PATCH", "/me", token: account.token, json: #"{"bio":"\#(bio)"}"#).status == 200)
        // A further change still pending when the account goes: its code mail, a failure and a reset request under it.
        let pendingEmail = TestEnvironment.email("pending")
        let pending = try client.send(
            "POST", "/me/email", token: account.token, json: #"{"password":"correct horse","email":"\#(pendingEmail)"}"#,
            headers: key("move"))
        #expect(pending.status == 200 && pending.json["pending_email"] as? String == pendingEmail)
        let failedPending = try Self.send(
            "POST", "/auth/login", from: failedFrom, json: #"{"email":"\#(pendingEmail)","password":"wrong horse"}"#, headers: key("bad"))
        #expect(failedPending.status == 401)
        let resetPending = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(pendingEmail)"}"#, headers: key("reset"))
        #expect(resetPending.status == 202)
        let needles = [account.email, newEmail, pendingEmail, name, bio, signedIn, failedFrom]
        #expect(try Self.columnsHolding(needles).split(separator: ",").count >= 11)  // the scan finds what is there

        let deleteKey = key("bye")
        let deleted = try client.send("DELETE", "/me", token: account.token, json: #"{"password":"correct horse"}"#, headers: deleteKey)
        #expect(deleted.status == 204)
        #expect(try Self.columnsHolding(needles) == "")
        let retried = try client.send("DELETE", "/me", token: account.token, json: #"{"password":"correct horse"}"#, headers: deleteKey)
        #expect(retried.status == 204)
        #expect(try TestEnvironment.scalar("select count(*) from app.idempotency_keys where user_id = $1", [friend.id]) == "0")
        #expect(try client.send("GET", "/me", token: friend.token).status == 200)
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
        let address = Self.uniqueAddress()
        let login = try Self.send("POST", "/auth/login", from: address, json: #"{"email":"\#(account.email)","password":"correct horse"}"#)
        #expect(login.status == 200)
        #expect(try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#).status == 202)
        #expect(try client.send("PATCH", "/me", token: account.token, json: #"{"bio":"Exported words"}"#).status == 200)
        let export = try client.send("GET", "/me/export", token: account.token)
        #expect(export.status == 200)
        #expect(
            Set(export.json.keys) == [
                "achievements", "age_gate", "avatar", "blocks", "exported_at", "failed_sign_ins", "friendships", "gifts", "items", "ledger",
                "ledger_archived", "mail", "password_resets", "profile", "reports_made", "sessions", "sign_in_addresses", "tips_shown",
                "tokens", "streak_freezes", "identities",
            ])
        #expect((export.json["profile"] as? [String: Any])?["email"] as? String == account.email)
        #expect((export.json["profile"] as? [String: Any])?["bio"] as? String == "Exported words")
        #expect((export.json["items"] as? [Any])?.count == 3)
        let addresses = (export.json["sign_in_addresses"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
        #expect(addresses == [address])
        let mail = export.json["mail"] as? [[String: Any]] ?? []
        #expect(mail.count == 1 && mail.first?["recipient"] as? String == account.email && mail.first?["body"] == nil)
    }

    /// A tip shown is listed with `earlier_views` 0; once its views are compacted past the horizon
    /// (here three, folded into the newest as app.compact_tip_views folds them) the entry is the
    /// newest as it was, and `earlier_views` counts the others.
    @Test(arguments: Transport.allCases)
    func exportCountsTheTipsShownBeforeTheHorizon(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("tips")
        let end = try TestEnvironment.databaseNow() - 600
        let session = UUID().uuidString.lowercased()
        let recorded = #"{"id":"\#(session)","started_at":"\#((end - 1500).rfc3339)","ended_at":"\#(end.rfc3339)","rating":"good"}"#
        let batch = try client.send("POST", "/focus-sessions/batch", token: account.token, json: #"{"sessions":[\#(recorded)]}"#)
        #expect(batch.status == 200)
        let listed = { () throws -> [[String: Any]] in
            try client.send("GET", "/me/export", token: account.token).json["tips_shown"] as? [[String: Any]] ?? []
        }
        let live = try listed()
        #expect(live.count == 1 && live.first?["session_id"] as? String == session && live.first?["earlier_views"] as? Int == 0)
        let folded = try TestEnvironment.scalar(
            """
            with moved as (delete from app.tip_views v where v.user_id = $1 returning v.*)
            insert into app.tip_views_compacted (user_id, tip_id, view_id, session_id, shown_at, views)
            select m.user_id, m.tip_id, m.id, m.session_id, m.shown_at, 3 from moved m returning views
            """, [account.id])
        #expect(folded == "3")
        let compacted = try listed()
        #expect(compacted.count == 1 && compacted.first?["earlier_views"] as? Int == 2)
        let unchanged = { (entry: [String: Any]?) in entry?.filter { $0.key != "earlier_views" } as NSDictionary? }
        #expect(unchanged(compacted.first) == unchanged(live.first))
    }

    /// A blocked user's request answers as any request (201), but never reaches the blocker;
    /// unblocking ends it as a decline, and then they may ask again.
    @Test(arguments: Transport.allCases)
    func aBlockedUsersRequestAnswersAsAnyRequest(transport: Transport) throws {
        let client = transport.client
        let blocker = try client.register("blocker"), blocked = try client.register("blocked")
        #expect(try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(blocker.email)"}"#).status == 201)

        let block = try client.send("POST", "/users/\(blocked.id)/block", token: blocker.token)
        #expect(block.status == 204)
        #expect(try client.send("GET", "/friend-requests", token: blocker.token).decode(FriendRequests.self).incoming.isEmpty)
        let asked = try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(blocker.email)"}"#)
        #expect(asked.status == 201)
        #expect(try client.send("GET", "/friend-requests", token: blocker.token).decode(FriendRequests.self).incoming.isEmpty)
        #expect(
            try client.send("GET", "/friend-requests", token: blocked.token).decode(FriendRequests.self).outgoing.map(\.to.id)
                == [blocker.id])
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
        #expect(try client.send("GET", "/friend-requests", token: blocked.token).decode(FriendRequests.self).outgoing.isEmpty)
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

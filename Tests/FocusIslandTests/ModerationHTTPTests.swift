// Moderation end to end: moderators (app.moderators, granted here as a DBA would) act over
// /moderation/…, every action audited; a suspended user is refused everywhere but export,
// deletion and logout; nobody else may moderate. Each case in-process and over a real socket.
import Foundation
import Testing

@Suite struct ModerationHTTPTests {
    /// Registers an account and makes it a moderator, as a DBA does in SQL.
    func moderator(_ client: Client) throws -> Account {
        let account = try client.register("mod")
        _ = try TestEnvironment.owner().execute("insert into app.moderators (user_id, note) values ($1, 'tests')", [account.id])
        return account
    }

    func auditRows(_ user: Account) throws -> String? {
        try TestEnvironment.scalar("select count(*) from app.moderation_actions where user_id = $1", [user.id])
    }

    func globalBoardIDs(_ client: Client, _ viewer: Account) throws -> [String] {
        try client.send("GET", "/leaderboards/daily?scope=global&limit=100", token: viewer.token)
            .decode(Leaderboard.self).entries.map(\.user.id)
    }

    /// A moderator suspends a user: their token gets 403 on /me, export still works, they are
    /// gone from the global board, and an audit row names the moderator.
    @Test(arguments: Transport.allCases)
    func aModeratorSuspendsAUser(transport: Transport) throws {
        let client = transport.client
        let moderator = try moderator(client), viewer = try client.register("viewer")
        let (user, before, after, suspended) = try TestEnvironment.withinOneUTCDay { clock in
            let user = try client.register("suspended")
            // A whole day of minutes ending as today began: first on today's global board.
            _ = try TestEnvironment.owner().execute(
                """
                insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
                select gen_random_uuid(), $1, 'offline', t - interval '1440 minutes', t, tstzrange(t - interval '1440 minutes', t), 1440
                from (select to_timestamp($2::double precision) as t) x
                """, [user.id, String(clock.todayStart.timeIntervalSince1970)])
            let before = try globalBoardIDs(client, viewer)
            let suspended = try client.send(
                "POST", "/moderation/users/\(user.id)/suspend", token: moderator.token,
                json: #"{"until":"\#((clock.now + 3 * 86_400).rfc3339)","reason":"harassment in display name"}"#)
            return (user, before, try globalBoardIDs(client, viewer), suspended)
        }
        #expect(before.contains(user.id), "on the global board before")
        #expect(suspended.status == 200)
        let action = try #require(suspended.json["action"] as? [String: Any])
        #expect(action["action"] as? String == "suspend" && action["moderator_id"] as? String == moderator.id)

        let me = try client.send("GET", "/me", token: user.token)
        #expect(me.status == 403 && me.code == "account_suspended")
        #expect(me.json["suspended_until"] is String)
        let export = try client.send("GET", "/me/export", token: user.token)
        #expect(export.status == 200)
        #expect((export.json["profile"] as? [String: Any])?["id"] as? String == user.id)
        #expect(!after.contains(user.id), "gone from the global board")
        #expect(
            try TestEnvironment.scalar(
                "select moderator_display_name || ' ' || action || ' ' || reason from report.moderation_actions where user_id = $1",
                [user.id]) == "mod suspend harassment in display name")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.moderation_actions where user_id = $1 and moderator = $2",
                [user.id, moderator.id]) == "1")
    }

    /// Banned: every route 403 but logout and deletion (and export, above).
    @Test(arguments: Transport.allCases)
    func aBannedUserMayOnlyExportDeleteAndLogOut(transport: Transport) throws {
        let client = transport.client
        let moderator = try moderator(client), user = try client.register("banned")
        let ban = try client.send("POST", "/moderation/users/\(user.id)/ban", token: moderator.token, json: #"{"reason":"spam"}"#)
        #expect(ban.status == 200)
        for (method, path) in [("GET", "/friends"), ("GET", "/leaderboards/daily"), ("GET", "/me/stats"), ("GET", "/events")] {
            let answer = try client.send(method, path, token: user.token)
            #expect(answer.status == 403 && answer.code == "account_suspended", "\(method) \(path)")
            #expect(answer.json.keys.contains("suspended_until") && answer.json["suspended_until"] is NSNull)
        }
        let patch = try client.send("PATCH", "/me", token: user.token, json: #"{"display_name":"Back"}"#)
        #expect(patch.status == 403 && patch.code == "account_suspended")
        #expect(try TestEnvironment.scalar("select display_name from app.users where id = $1", [user.id]) == "banned")
        let deleted = try client.send("DELETE", "/me", token: user.token, json: #"{"password":"correct horse"}"#)
        #expect(deleted.status == 204)
        #expect(try TestEnvironment.scalar("select deleted_at is not null from app.users where id = $1", [user.id]) == "t")
    }

    @Test(arguments: Transport.allCases)
    func nobodyElseMayModerate(transport: Transport) throws {
        let client = transport.client
        let someone = try client.register("someone"), target = try client.register("target")
        let calls: [(String, String, String?)] = [
            ("GET", "/moderation/reports", nil),
            ("POST", "/moderation/reports/\(UUID().uuidString)/resolve", #"{"status":"dismissed","reason":"x"}"#),
            ("POST", "/moderation/users/\(target.id)/rename", #"{"display_name":"Renamed","reason":"x"}"#),
            ("DELETE", "/moderation/users/\(target.id)/avatar", #"{"reason":"x"}"#),
            ("POST", "/moderation/users/\(target.id)/suspend", #"{"until":"2100-01-01T00:00:00Z","reason":"x"}"#),
            ("POST", "/moderation/users/\(target.id)/ban", #"{"reason":"x"}"#),
        ]
        for (method, path, body) in calls {
            let refused = try client.send(method, path, token: someone.token, json: body)
            #expect(refused.status == 403 && refused.code == "not_moderator", "\(method) \(path)")
            let anonymous = try client.send(method, path, json: body)
            #expect(anonymous.status == 401 && anonymous.code == "unauthorized", "\(method) \(path) without a token")
        }
        #expect(try auditRows(target) == "0")
        #expect(try TestEnvironment.scalar("select count(*) from app.suspensions where user_id = $1", [target.id]) == "0")
        #expect(try client.send("GET", "/me", token: target.token).decode(Profile.self).displayName == "target")
    }

    @Test(arguments: Transport.allCases)
    func badModeratorRequestsChangeNothing(transport: Transport) throws {
        let client = transport.client
        let moderator = try moderator(client), target = try client.register("target")
        let suspend = "/moderation/users/\(target.id)/suspend"
        let cases: [(String, String, Int, String)] = [
            (suspend, #"{"until":"#, 400, "invalid_json"),
            (suspend, #"{"until":5,"reason":"x"}"#, 400, "invalid_field"),
            (suspend, #"{"until":"2100-01-01T00:00:00Z"}"#, 400, "invalid_field"),
            (suspend, #"{"until":"2100-01-01T00:00:00Z","reason":"   "}"#, 400, "invalid_field"),
            (suspend, #"{"until":"2000-01-01T00:00:00Z","reason":"x"}"#, 400, "invalid_field"),
            (suspend, #"{"until":"2100-01-01T00:00:00Z","reason":"x","extra":1}"#, 400, "invalid_field"),
            ("/moderation/users/\(UUID().uuidString)/suspend", #"{"until":"2100-01-01T00:00:00Z","reason":"x"}"#, 404, "user_not_found"),
            ("/moderation/users/not-a-uuid/suspend", #"{"until":"2100-01-01T00:00:00Z","reason":"x"}"#, 400, "invalid_field"),
            ("/moderation/users/\(moderator.id)/suspend", #"{"until":"2100-01-01T00:00:00Z","reason":"x"}"#, 422, "cannot_moderate_self"),
            ("/moderation/users/\(target.id)/rename", #"{"display_name":"","reason":"x"}"#, 400, "invalid_display_name"),
            ("/moderation/users/\(target.id)/rename", #"{"display_name":["A"],"reason":"x"}"#, 400, "invalid_field"),
        ]
        for (path, body, status, code) in cases {
            let answer = try client.send("POST", path, token: moderator.token, json: body)
            #expect(answer.status == status && answer.code == code, "\(path) \(body): \(answer.status) \(answer.text)")
        }
        let noAvatar = try client.send("DELETE", "/moderation/users/\(target.id)/avatar", token: moderator.token, json: #"{"reason":"x"}"#)
        #expect(noAvatar.status == 404 && noAvatar.code == "avatar_not_found")
        #expect(try auditRows(target) == "0")
        #expect(try TestEnvironment.scalar("select count(*) from app.suspensions where user_id = $1", [target.id]) == "0")
        #expect(try client.send("GET", "/me", token: target.token).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func aModeratorRenamesAndReadsAndResolvesReports(transport: Transport) throws {
        let client = transport.client
        let moderator = try moderator(client)
        let rude = try client.register("rude"), first = try client.register("first"), second = try client.register("second")
        for reporter in [first, second] {
            let made = try client.send("POST", "/users/\(rude.id)/report", token: reporter.token, json: #"{"reason":"inappropriate_name"}"#)
            #expect(made.status == 201)
        }
        let page = try client.send("GET", "/moderation/reports?user_id=\(rude.id)&limit=1", token: moderator.token)
        #expect(page.status == 200)
        let reports = try #require(page.json["reports"] as? [[String: Any]])
        #expect(reports.count == 1 && reports.first?["status"] as? String == "open")
        let cursor = try #require(page.json["next_cursor"] as? String)
        let rest = try client.send("GET", "/moderation/reports?user_id=\(rude.id)&limit=1&after=\(cursor)", token: moderator.token)
        let last = try #require((rest.json["reports"] as? [[String: Any]])?.first)
        #expect(last["id"] as? String != reports.first?["id"] as? String)

        let renamed = try client.send(
            "POST", "/moderation/users/\(rude.id)/rename", token: moderator.token,
            json: #"{"display_name":"Player 1","reason":"offensive name"}"#)
        #expect(renamed.status == 200)
        #expect(try client.send("GET", "/me", token: rude.token).decode(Profile.self).displayName == "Player 1")

        // Two moderators' racing resolutions of one report: one wins, one is 409, one audit row.
        let id = try #require(reports.first?["id"] as? String)
        let answers = try concurrently(2) { _ in
            try client.send(
                "POST", "/moderation/reports/\(id)/resolve", token: moderator.token,
                json: #"{"status":"actioned","reason":"renamed"}"#
            ).status
        }
        #expect(answers.sorted() == [200, 409])
        #expect(try TestEnvironment.scalar("select count(*) from app.moderation_actions where report_id = $1", [id]) == "1")
        let unknown = try client.send(
            "POST", "/moderation/reports/\(UUID().uuidString)/resolve", token: moderator.token,
            json: #"{"status":"dismissed","reason":"x"}"#)
        #expect(unknown.status == 404 && unknown.code == "report_not_found")
        let actioned = try client.send("GET", "/moderation/reports?status=actioned&user_id=\(rude.id)", token: moderator.token)
        #expect((actioned.json["reports"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
    }

    /// Reporting twice while open stores one report; the answers to someone who blocked you
    /// are the answers to someone who did not.
    @Test(arguments: Transport.allCases)
    func reportsAreDeduplicatedAndBlocksDoNotShow(transport: Transport) throws {
        let client = transport.client
        let blocker = try client.register("blocker"), blocked = try client.register("blocked"), other = try client.register("other")
        #expect(try client.send("POST", "/users/\(blocked.id)/block", token: blocker.token).status == 204)

        func statuses(_ target: Account) throws -> [Int] {
            [
                try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(target.email)"}"#).status,
                try client.send("POST", "/friend-requests", token: blocked.token, json: #"{"email":"\#(target.email)"}"#).status,
                try client.send("POST", "/users/\(target.id)/report", token: blocked.token, json: #"{"reason":"spam"}"#).status,
                try client.send("POST", "/users/\(target.id)/report", token: blocked.token, json: #"{"reason":"spam"}"#).status,
                try client.send("POST", "/users/\(target.id)/block", token: blocked.token).status,
            ]
        }
        #expect(try statuses(blocker) == [201, 200, 201, 200, 204])
        #expect(try statuses(other) == [201, 200, 201, 200, 204])
        #expect(try TestEnvironment.scalar("select count(*) from app.user_reports where reporter = $1", [blocked.id]) == "2")
        #expect(try client.send("GET", "/friend-requests", token: blocker.token).decode(FriendRequests.self).incoming.isEmpty)
    }
}

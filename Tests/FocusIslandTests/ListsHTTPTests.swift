// Paged lists, daily stats and session tags end to end, each case in-process through the
// pipeline and over a real socket (Transport.swift): every page followed by its next_cursor to
// the last (null), refused cursors, limits and dates as problem+json, the database unchanged
// after a refusal, and racing uploads of one tagged session. Times come from the database's
// clock (TestEnvironment.todayStart), never from Date().
import Foundation
import Testing

@Suite struct ListsHTTPTests {
    /// {<list>: [{...}], next_cursor}: the ids of a page (the friend's, the blocked user's, the
    /// session's or the report's) and where the next one starts.
    struct Page {
        let ids: [String]
        let next: String?
    }

    func page(_ client: Client, _ path: String, _ list: String, token: String) throws -> Page {
        let result = try client.send("GET", path, token: token)
        #expect(result.status == 200, "\(path): \(result.text)")
        let rows = result.json[list] as? [[String: Any]] ?? []
        let ids = rows.compactMap { row in (row["user"] as? [String: Any])?["id"] as? String ?? row["id"] as? String }
        return Page(ids: ids, next: result.json["next_cursor"] as? String)
    }

    /// Every page of `limit` from the first, following next_cursor; the ids page by page.
    func walk(_ client: Client, _ path: String, _ list: String, limit: Int, token: String) throws -> [[String]] {
        let separator = path.contains("?") ? "&" : "?"
        var pages: [[String]] = []
        var current = try page(client, "\(path)\(separator)limit=\(limit)", list, token: token)
        while true {
            pages.append(current.ids)
            guard let next = current.next, pages.count < 20 else { break }
            current = try page(client, "\(path)\(separator)limit=\(limit)&cursor=\(next)", list, token: token)
        }
        return pages
    }

    /// A cursor as another list (`list`) would make it, for a place in its order.
    func foreignCursor(_ list: String) -> String {
        let key = #"["\#(list)","2026-11-30T00:00:00.000000Z","00000000-0000-4000-8000-000000000000"]"#
        return Data(key.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A problem answer: its status, code and media type.
    func expectProblem(_ result: HTTPResult, _ status: Int, _ code: String, _ what: String) {
        #expect(result.status == status && result.code == code, "\(what): \(result.status) \(result.text)")
        #expect(result.header("Content-Type") == "application/problem+json", "\(what)")
    }

    @Test(arguments: Transport.allCases)
    func friendsAndBlocksComeInPagesToTheLast(transport: Transport) throws {
        let client = transport.client
        let me = try client.register("pager")
        var others: [Account] = []
        for index in 0..<5 { others.append(try client.register("paged\(index)")) }
        for other in others.prefix(3) {
            #expect(try client.send("POST", "/friend-requests", token: me.token, json: #"{"email":"\#(other.email)"}"#).status == 201)
            #expect(try client.send("POST", "/friend-requests", token: other.token, json: #"{"email":"\#(me.email)"}"#).status == 200)
        }
        for other in others.suffix(2) {
            #expect(try client.send("POST", "/users/\(other.id)/block", token: me.token).status == 204)
        }
        let friends = try page(client, "/friends", "friends", token: me.token)
        #expect(Set(friends.ids) == Set(others.prefix(3).map(\.id)) && friends.next == nil)
        let friendPages = try walk(client, "/friends", "friends", limit: 2, token: me.token)
        #expect(friendPages.map(\.count) == [2, 1] && friendPages.flatMap { $0 } == friends.ids)
        #expect(try page(client, "/friends?limit=3", "friends", token: me.token).next == nil)

        let blocks = try page(client, "/me/blocks", "blocks", token: me.token)
        #expect(Set(blocks.ids) == Set(others.suffix(2).map(\.id)) && blocks.next == nil)
        #expect(try walk(client, "/me/blocks", "blocks", limit: 1, token: me.token) == blocks.ids.map { [$0] })

        // Refusals: a cursor from another list, an altered one, a malformed limit; no token.
        let blockCursor = try #require(try page(client, "/me/blocks?limit=1", "blocks", token: me.token).next)
        expectProblem(try client.send("GET", "/friends?cursor=\(blockCursor)", token: me.token), 400, "invalid_cursor", "blocks' cursor")
        expectProblem(
            try client.send("GET", "/friends?cursor=\(blockCursor.dropLast(2))", token: me.token), 400, "invalid_cursor", "cut")
        expectProblem(try client.send("GET", "/me/blocks?cursor=%25%25", token: me.token), 400, "invalid_cursor", "not base64url")
        for limit in ["0", "201", "ten", "1.5", ""] {
            expectProblem(try client.send("GET", "/friends?limit=\(limit)", token: me.token), 400, "invalid_field", "limit=\(limit)")
            expectProblem(try client.send("GET", "/me/blocks?limit=\(limit)", token: me.token), 400, "invalid_field", "limit=\(limit)")
        }
        #expect(try client.send("GET", "/friends?limit=2").status == 401)
        #expect(try client.send("GET", "/me/blocks?cursor=\(blockCursor)", token: "expired-or-unknown").status == 401)
        // Another person's cursor is only a place in the order: it shows them nothing of mine.
        let friendCursor = try #require(try page(client, "/friends?limit=1", "friends", token: me.token).next)
        let stranger = try page(client, "/friends?cursor=\(friendCursor)", "friends", token: others[4].token)
        #expect(stranger.ids.isEmpty && stranger.next == nil)
    }

    @Test(arguments: Transport.allCases)
    func sessionHistoryPagesKeepTheTotalsOfTheRange(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("history")
        let today = try TestEnvironment.todayStart()
        for hours in [1.0, 3.0, 5.0, 7.0] {
            let start = today - hours * 3600
            let body = #"{"id":"\#(UUID().uuidString)","started_at":"\#(start.rfc3339)","ended_at":"\#((start + 20 * 60).rfc3339)"}"#
            #expect(try client.send("POST", "/focus-sessions", token: account.token, json: body).status == 201)
        }
        let whole = try client.send("GET", "/focus-sessions", token: account.token)
        let all = try page(client, "/focus-sessions", "sessions", token: account.token)
        #expect(all.ids.count == 4 && all.next == nil && whole.json["total_minutes"] as? Int == 80)
        #expect(try walk(client, "/focus-sessions", "sessions", limit: 3, token: account.token) == [Array(all.ids[0..<3]), [all.ids[3]]])
        let second = try #require(try page(client, "/focus-sessions?limit=3", "sessions", token: account.token).next)
        let last = try client.send("GET", "/focus-sessions?limit=3&cursor=\(second)", token: account.token)
        #expect(last.json["total_minutes"] as? Int == 80 && last.json["total_coins_earned"] as? Int == 80)
        expectProblem(
            try client.send("GET", "/focus-sessions?cursor=WyJzZXNzaW9ucyJd", token: account.token), 400, "invalid_cursor", "no key")
        expectProblem(try client.send("GET", "/focus-sessions?limit=501", token: account.token), 400, "invalid_field", "limit 501")
    }

    @Test(arguments: Transport.allCases)
    func moderatorsPageReportsByCursor(transport: Transport) throws {
        let client = transport.client
        let moderator = try client.register("pagemod")
        _ = try TestEnvironment.owner().execute("insert into app.moderators (user_id, note) values ($1, 'tests')", [moderator.id])
        let target = try client.register("reported")
        for index in 0..<3 {
            let reporter = try client.register("reporter\(index)")
            #expect(try client.send("POST", "/users/\(target.id)/report", token: reporter.token, json: #"{"reason":"spam"}"#).status == 201)
        }
        let path = "/moderation/reports?user_id=\(target.id)"
        let all = try page(client, path, "reports", token: moderator.token)
        #expect(all.ids.count == 3 && all.next == nil)
        #expect(try walk(client, path, "reports", limit: 2, token: moderator.token) == [Array(all.ids[0..<2]), [all.ids[2]]])
        expectProblem(
            try client.send("GET", "\(path)&cursor=\(foreignCursor("sessions"))", token: moderator.token), 400, "invalid_cursor", "foreign")
        let reportCursor = try #require(try page(client, "\(path)&limit=1", "reports", token: moderator.token).next)
        expectProblem(
            try client.send("GET", "\(path)&after=\(all.ids[0])&cursor=\(reportCursor)", token: moderator.token), 400,
            "invalid_field", "after with cursor")
        expectProblem(try client.send("GET", "\(path)&limit=2", token: target.token), 403, "not_moderator", "not a moderator")
    }

    @Test(arguments: Transport.allCases)
    func dailyStatsCountLocalDaysAndRefuseBadRanges(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("charts")
        // Tokyo (UTC+9): what ends at 23:30 UTC the day before yesterday is yesterday, 08:30, in Tokyo.
        #expect(try client.send("PATCH", "/me", token: account.token, json: #"{"settings":{"time_zone":"Asia/Tokyo"}}"#).status == 200)
        let today = try TestEnvironment.todayStart()
        let end = today - 86_400 - 30 * 60
        let body = #"{"id":"\#(UUID().uuidString)","started_at":"\#((end - 25 * 60).rfc3339)","ended_at":"\#(end.rfc3339)"}"#
        #expect(try client.send("POST", "/focus-sessions", token: account.token, json: body).status == 201)
        let utcDay = DateFormatter()
        utcDay.locale = Locale(identifier: "en_US_POSIX")
        utcDay.timeZone = TimeZone(identifier: "UTC")
        utcDay.dateFormat = "yyyy-MM-dd"
        let tokyoDay = utcDay.string(from: end + 9 * 3600)
        let from = utcDay.string(from: end - 2 * 86_400), to = utcDay.string(from: end + 2 * 86_400)
        let daily = try client.send("GET", "/me/stats/daily?from=\(from)&to=\(to)", token: account.token)
        #expect(daily.status == 200)
        let days = daily.json["days"] as? [[String: Any]] ?? []
        #expect(days.count == 5 && daily.json["time_zone"] as? String == "Asia/Tokyo")
        #expect(days.filter { ($0["minutes"] as? Int ?? 0) > 0 }.map { $0["date"] as? String } == [tokyoDay])
        #expect(days.map { $0["sessions"] as? Int } == days.map { $0["date"] as? String == tokyoDay ? 1 : 0 })
        let week = try client.send("GET", "/me/stats/daily", token: account.token).json["days"] as? [Any]
        #expect(week?.count == 7)
        expectProblem(
            try client.send("GET", "/me/stats/daily?from=2025-01-01&to=2026-12-31", token: account.token), 400, "invalid_date_range",
            "a range of 730 days")

        for (query, code) in [
            ("from=\(to)&to=\(from)", "invalid_date_range"),
            ("from=2026-02-30", "invalid_field"), ("to=tomorrow", "invalid_field"), ("from=2026-11-30T00:00:00Z", "invalid_field"),
        ] {
            expectProblem(try client.send("GET", "/me/stats/daily?\(query)", token: account.token), 400, code, query)
            expectProblem(try client.send("GET", "/me/stats/tags?\(query)", token: account.token), 400, code, query)
        }
        #expect(try client.send("GET", "/me/stats/daily").status == 401)
        #expect(try client.send("GET", "/me/stats/tags", token: "nope").status == 401)
    }

    @Test(arguments: Transport.allCases)
    func tagsAreNormalisedRefusedWithoutTraceAndSummed(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("tagger")
        func sessions() throws -> String? {
            try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id])
        }
        for bad in [
            #"{"planned_minutes":25,"tag":7}"#, #"{"planned_minutes":25,"tag":"\#(String(repeating: "x", count: 33))"}"#,
            #"{"planned_minutes":25,"tag":"a\u200bb"}"#, #"{"planned_minutes":25,"tags":"math"}"#,
        ] {
            expectProblem(try client.send("POST", "/focus-sessions/start", token: account.token, json: bad), 400, "invalid_field", bad)
        }
        expectProblem(
            try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25,"tag":"#), 400,
            "invalid_json", "cut JSON")
        #expect(try sessions() == "0")

        let started = try client.send(
            "POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25,"tag":"  Deep   WORK "}"#)
        #expect(started.status == 201 && (started.json["session"] as? [String: Any])?["tag"] as? String == "deep work")
        let running = try #require((started.json["session"] as? [String: Any])?["id"] as? String)
        #expect(try client.send("POST", "/focus-sessions/\(running)/abandon", token: account.token).status == 200)

        // One tagged offline session uploaded eight times at once: one 201, the rest 200, one row.
        let today = try TestEnvironment.todayStart()
        let id = UUID().uuidString
        let body = #"{"id":"\#(id)","started_at":"\#((today - 3600).rfc3339)","ended_at":"\#((today - 1800).rfc3339)","tag":"Math"}"#
        let statuses = try concurrently(8) { _ in try client.send("POST", "/focus-sessions", token: account.token, json: body).status }
        #expect(statuses.sorted() == [200, 200, 200, 200, 200, 200, 200, 201])
        #expect(try TestEnvironment.scalar("select tag from app.focus_sessions where id = $1", [id]) == "math")
        let retagged = body.replacingOccurrences(of: "Math", with: "reading")
        expectProblem(try client.send("POST", "/focus-sessions", token: account.token, json: retagged), 409, "session_conflict", "retag")

        let tags = try client.send("GET", "/me/stats/tags", token: account.token)
        #expect(tags.status == 200)
        let rows = (tags.json["tags"] as? [[String: Any]] ?? []).map {
            "\($0["tag"] as? String ?? "-") \($0["minutes"] as? Int ?? -1) \($0["sessions"] as? Int ?? -1)"
        }
        #expect(rows == ["math 30 1"])
        #expect(try sessions() == "2")
    }
}

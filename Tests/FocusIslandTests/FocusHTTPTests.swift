// Focus sessions and tips end to end over HTTP.
import Foundation
import Testing

@Suite struct FocusHTTPTests {
    /// RFC 3339 for `seconds` from now.
    func time(_ seconds: TimeInterval) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date().addingTimeInterval(seconds))
    }

    func offline(_ id: String, from start: TimeInterval, minutes: Double) -> String {
        #"{"id":"\#(id)","started_at":"\#(time(start))","ended_at":"\#(time(start + minutes * 60))"}"#
    }

    @Test func aSessionUploadedTwiceInParallelEarnsOnce() throws {
        let client = try TestServer.client()
        let account = try client.register("twice")
        let id = UUID().uuidString
        let body = offline(id, from: -3600, minutes: 30)
        let results = try concurrently(10) { _ in
            try client.send("POST", "/focus-sessions", token: account.token, json: body)
        }
        #expect(results.filter { $0.status == 201 }.count == 1)
        #expect(results.filter { $0.status == 200 }.count == 9)
        let answers = Set(results.map { ($0.json["session"] as? [String: Any])?["coins_earned"] as? Int })
        #expect(answers == [30])
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "30")

        let conflict = try client.send("POST", "/focus-sessions", token: account.token,
                                       json: offline(id, from: -3600, minutes: 20))
        #expect(conflict.status == 409 && conflict.code == "session_conflict")
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "30")
    }

    @Test func anotherUsersSessionIDIsAConflictAndChangesNothing() throws {
        let client = try TestServer.client()
        let owner = try client.register("owner"), thief = try client.register("thief")
        let id = UUID().uuidString
        #expect(try client.send("POST", "/focus-sessions", token: owner.token, json: offline(id, from: -3600, minutes: 30)).status == 201)
        let before = try TestEnvironment.scalar("select md5(s::text) from app.focus_sessions s where id = $1", [id])
        let stolen = try client.send("POST", "/focus-sessions", token: thief.token, json: offline(id, from: -3600, minutes: 30))
        #expect(stolen.status == 409 && stolen.code == "session_conflict")
        #expect(try TestEnvironment.scalar("select md5(s::text) from app.focus_sessions s where id = $1", [id]) == before)
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [thief.id]) == "0")
    }

    @Test func anOverlappingSessionIsRefusedAndEarnsNothing() throws {
        let client = try TestServer.client()
        let account = try client.register("overlap")
        #expect(try client.send("POST", "/focus-sessions", token: account.token,
                                json: offline(UUID().uuidString, from: -7200, minutes: 60)).status == 201)
        let overlapping = try client.send("POST", "/focus-sessions", token: account.token,
                                          json: offline(UUID().uuidString, from: -5400, minutes: 60))
        #expect(overlapping.status == 409 && overlapping.code == "session_overlap")
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "60")
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "1")
    }

    @Test(arguments: [
        (#"{"id":"ID","started_at":"IN_ONE_HOUR","ended_at":"IN_TWO_HOURS"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"NOW","ended_at":"AN_HOUR_AGO"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"FOUR_HOURS_AGO","ended_at":"NOW"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"yesterday","ended_at":"NOW"}"#, 400, "invalid_field"),
        (#"{"id":"nope","started_at":"AN_HOUR_AGO","ended_at":"NOW"}"#, 400, "invalid_field"),
        (#"{"id":"ID","started_at":"AN_HOUR_AGO","ended_at":"NOW","coins":1000}"#, 400, "invalid_field"),
        (#"{"id":"ID","started_at":"AN_HOUR_AGO","ended_at":"NOW","planned_minutes":"lots"}"#, 400, "invalid_field"),
    ])
    func invalidSessionsAreRefusedAndStoreNothing(template: String, status: Int, code: String) throws {
        let client = try TestServer.client()
        let account = try client.register("invalid")
        let body = template.replacingOccurrences(of: "ID", with: UUID().uuidString)
            .replacingOccurrences(of: "IN_ONE_HOUR", with: time(3600)).replacingOccurrences(of: "IN_TWO_HOURS", with: time(7200))
            .replacingOccurrences(of: "FOUR_HOURS_AGO", with: time(-14400)).replacingOccurrences(of: "AN_HOUR_AGO", with: time(-3600))
            .replacingOccurrences(of: "NOW", with: time(0))
        let result = try client.send("POST", "/focus-sessions", token: account.token, json: body)
        #expect(result.status == status)
        #expect(result.code == code)
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "0")
    }

    @Test func liveSessionRunsOnTheServersClock() throws {
        let client = try TestServer.client()
        let account = try client.register("live")
        let started = try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        #expect(started.json["planned_minutes"] as? Int == 25)
        let second = try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#)
        #expect(second.status == 409 && second.code == "session_in_progress" && second.json["id"] as? String == id)

        // Pretend it started 30 minutes ago: the plan (25) caps the minutes.
        try TestEnvironment.owner().execute("""
            update app.focus_sessions set started_at = started_at - interval '30 minutes',
                   occupies = tstzrange(lower(occupies) - interval '30 minutes', upper(occupies) - interval '30 minutes')
            where id = $1
            """, [id])
        let early = try client.send("POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"good"}"#)
        #expect(early.status == 409 && early.code == "session_not_finished")
        let other = try client.register("intruder")
        let stolen = try client.send("POST", "/focus-sessions/\(id)/finish", token: other.token)
        #expect(stolen.status == 404 && stolen.code == "session_not_found")

        let finished = try client.send("POST", "/focus-sessions/\(id)/finish", token: account.token)
        #expect(finished.status == 200)
        #expect((finished.json["session"] as? [String: Any])?["minutes"] as? Int == 25)
        #expect(finished.json["balance"] as? Int == 25)
        let again = try client.send("POST", "/focus-sessions/\(id)/finish", token: account.token)
        #expect(again.json["balance"] as? Int == 25)

        let list = try client.send("GET", "/focus-sessions", token: account.token)
        #expect(list.json["total_minutes"] as? Int == 25 && list.json["total_coins"] as? Int == 25)
        let stats = try client.send("GET", "/me/stats", token: account.token)
        #expect(stats.json["total_minutes"] as? Int == 25)
        #expect(stats.json["current_streak_days"] as? Int == 1)
        let bad = try client.send("GET", "/focus-sessions?from=yesterday", token: account.token)
        #expect(bad.status == 400 && bad.code == "invalid_field")
        #expect(try client.send("POST", "/focus-sessions/not-a-uuid/finish", token: account.token).status == 400)
    }

    @Test(arguments: ["good", "fine", "bad"])
    func theTipMatchesTheRating(rating: String) throws {
        let client = try TestServer.client()
        let account = try client.register("rating")
        let id = UUID().uuidString
        #expect(try client.send("POST", "/focus-sessions", token: account.token, json: offline(id, from: -3600, minutes: 30)).status == 201)
        let rated = try client.send("POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"\#(rating)"}"#)
        #expect(rated.status == 200)
        #expect((rated.json["tip"] as? [String: Any])?["rating_level"] as? String == rating)
        #expect((rated.json["session"] as? [String: Any])?["rating"] as? String == rating)
        let other = try client.register("rater")
        let foreign = try client.send("POST", "/focus-sessions/\(id)/rating", token: other.token, json: #"{"rating":"\#(rating)"}"#)
        #expect(foreign.status == 404 && foreign.code == "session_not_found")
    }

    @Test(arguments: ["/sync/mindfulness-tips", "/Sync/MindfulnessTips"])
    func tipSyncIsASetDifference(path: String) throws {
        let client = try TestServer.client()
        let all = try TestEnvironment.owner().execute("select id::text from app.mindfulness_tips where active").compactMap { $0[0] }
        func ids(_ list: [String]) -> String { #"{"known_ids":["# + list.map { "\"\($0)\"" }.joined(separator: ",") + "]}" }

        let everything = try client.send("POST", path, json: ids(all))
        #expect(everything.status == 200)
        #expect((everything.json["missing"] as? [Any])?.isEmpty == true)
        let nothing = try client.send("POST", path, json: ids([]))
        #expect((nothing.json["missing"] as? [Any])?.count == all.count)
        let stale = UUID().uuidString.lowercased()
        let withStale = try client.send("POST", path, json: ids(Array(all.prefix(all.count / 2)) + [stale]))
        #expect((withStale.json["missing"] as? [Any])?.count == all.count - all.count / 2)
        #expect(withStale.json["removed"] as? [String] == [stale])
        let bad = try client.send("POST", path, json: #"{"known_ids":[1,2]}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }
}

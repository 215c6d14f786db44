// Focus sessions and tips end to end, each case in-process through the pipeline and over a
// real socket (Transport.swift). Every time comes from the database's clock (DatabaseClock),
// which may be moved away from this process's clock: never from Date().
import Foundation
import Testing

@Suite struct FocusHTTPTests {
    /// An offline session's body: `minutes` long from `start`.
    func offline(_ id: String, from start: Date, minutes: Double) -> String {
        #"{"id":"\#(id)","started_at":"\#(start.rfc3339)","ended_at":"\#((start + minutes * 60).rfc3339)"}"#
    }

    /// The codes of an answer's achievements_unlocked (nil without the member).
    func unlocked(_ result: HTTPResult) -> [String]? {
        (result.json["achievements_unlocked"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
    }

    func balance(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id])
    }

    @Test(arguments: Transport.allCases)
    func aSessionUploadedTwiceInParallelEarnsOnce(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("twice")
        let id = UUID().uuidString
        let now = try TestEnvironment.databaseNow()
        let body = offline(id, from: now - 3600, minutes: 30)
        let results = try concurrently(10) { _ in
            try client.send("POST", "/focus-sessions", token: account.token, json: body)
        }
        #expect(results.filter { $0.status == 201 }.count == 1)
        #expect(results.filter { $0.status == 200 }.count == 9)
        let answers = Set(results.map { try? $0.decode(SessionReply.self) })
        #expect(
            answers == [
                SessionReply(
                    session: Session(id: id.lowercased(), minutes: 30, coinsEarned: 30, rating: nil),
                    balance: 30 + 10)  // + first_session's reward (docs/achievements.md), paid once too
            ])
        #expect(try balance(account) == "40")
        // The nine repeats answer the first answer byte for byte, first_session included.
        #expect(Set(results.map(\.text)).count == 1, "\(Set(results.map(\.text)))")
        #expect(unlocked(results[0]) == ["first_session"])

        let conflict = try client.send(
            "POST", "/focus-sessions", token: account.token,
            json: offline(id, from: now - 3600, minutes: 20))
        #expect(conflict.status == 409 && conflict.code == "session_conflict")
        #expect(try balance(account) == "40")
    }

    /// The offline cap counts UTC days of `ended_at`: switching the time zone before each upload,
    /// each session starting at that zone's local midnight, opens no new cap (it paid 8 x 179);
    /// eight batches racing, one session each on one UTC day, pay the cap once.
    @Test(arguments: Transport.allCases)
    func zoneHoppingUploadsAndRacingBatchesPayAtMostTheDailyCap(transport: Transport) throws {
        let client = transport.client
        let hopper = try client.register("hopper")
        let yesterday = try TestEnvironment.todayStart() - 86_400
        let zones = ["Etc/GMT", "Etc/GMT+3", "Etc/GMT+6", "Etc/GMT+9", "Etc/GMT+12", "Etc/GMT-9", "Etc/GMT-6", "Etc/GMT-3"]
        var paid: [Int] = []
        for (index, zone) in zones.enumerated() {
            let zoned = try client.send("PATCH", "/me", token: hopper.token, json: #"{"settings":{"time_zone":"\#(zone)"}}"#)
            #expect(zoned.status == 200)
            let start = yesterday + Double(index) * 3 * 3600  // that zone's local midnight
            let recorded = try client.send(
                "POST", "/focus-sessions", token: hopper.token, json: offline(UUID().uuidString, from: start, minutes: 179))
            #expect(recorded.status == 201)
            paid.append(try recorded.decode(SessionReply.self).session.coinsEarned)
        }
        #expect(paid == [179, 121, 0, 0, 0, 0, 0, 0])
        #expect(try balance(hopper) == "360", "the cap's 300 and the rewards of first_session (10) and ten_hours (50), which no cap counts")

        let racer = try client.register("racer")
        let dayBefore = yesterday - 86_400
        let bodies = (0..<8).map {
            #"{"sessions":[\#(offline(UUID().uuidString, from: dayBefore + Double($0) * 3 * 3600, minutes: 179))]}"#
        }
        let statuses = try concurrently(8) { index in
            try client.send("POST", "/focus-sessions/batch", token: racer.token, json: bodies[index]).status
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(try balance(racer) == "360", "the cap's 300 and the rewards of first_session and ten_hours")
        #expect(try TestEnvironment.scalar("select sum(coins_earned) from app.focus_sessions where user_id = $1", [racer.id]) == "300")
    }

    @Test(arguments: Transport.allCases)
    func anotherUsersSessionIDIsAConflictAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let owner = try client.register("owner"), thief = try client.register("thief")
        let id = UUID().uuidString
        let body = offline(id, from: try TestEnvironment.databaseNow() - 3600, minutes: 30)
        #expect(try client.send("POST", "/focus-sessions", token: owner.token, json: body).status == 201)
        let before = try TestEnvironment.scalar("select md5(s::text) from app.focus_sessions s where id = $1", [id])
        let stolen = try client.send("POST", "/focus-sessions", token: thief.token, json: body)
        #expect(stolen.status == 409 && stolen.code == "session_conflict")
        #expect(try TestEnvironment.scalar("select md5(s::text) from app.focus_sessions s where id = $1", [id]) == before)
        #expect(try balance(thief) == "0")
    }

    /// A focus session moved past the horizon (0055: recorded 300 days ago, then moved as
    /// app.archive_focus_sessions moves it, delete triggers skipped, so every count stays as it
    /// was) is listed and exported as before, its id stays taken, and it can no longer be rated.
    @Test(arguments: Transport.allCases)
    func anArchivedFocusSessionIsListedTakenAndClosed(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("archived")
        let id = UUID().uuidString.lowercased()
        _ = try TestEnvironment.scalar("update app.users set created_at = now() - interval '500 days' where id = $1", [account.id])
        _ = try TestEnvironment.scalar(
            """
            insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, rating, rated_at)
            select $2, $1, 'offline', e - interval '25 minutes', e, tstzrange(e - interval '25 minutes', e), 25, 'good', e
            from (select now() - interval '300 days' as e) t
            """, [account.id, id])
        let moved = try TestEnvironment.scalar(
            """
            with flag as (select set_config('focus.bulk_import', 'on', true) as on),
            moved as (delete from app.focus_sessions s where s.id = $1 and (select f.on = 'on' from flag f) returning s.*)
            insert into app.focus_sessions_archived select * from moved returning id
            """, [id])
        #expect(moved == id)
        let since = try TestEnvironment.databaseNow() - 400 * 86400
        let listed = try client.send("GET", "/focus-sessions?from=\(since.rfc3339)", token: account.token)
        #expect(listed.status == 200)
        #expect((listed.json["sessions"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        #expect(listed.json["total_minutes"] as? Int == 25)
        let exported = try client.send("GET", "/me/export", token: account.token).json["sessions"] as? [[String: Any]]
        #expect(exported?.compactMap { $0["rating"] as? String } == ["good"])

        let before = try balance(account)
        let rated = try client.send("POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"bad"}"#)
        #expect(rated.status == 404 && rated.code == "session_not_found")
        let reused = offline(id, from: try TestEnvironment.databaseNow() - 3600, minutes: 30)
        let again = try client.send("POST", "/focus-sessions", token: account.token, json: reused)
        #expect(again.status == 409 && again.code == "session_conflict")
        #expect(try balance(account) == before)
    }

    @Test(arguments: Transport.allCases)
    func anOverlappingSessionIsRefusedAndEarnsNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("overlap")
        let now = try TestEnvironment.databaseNow()
        #expect(
            try client.send(
                "POST", "/focus-sessions", token: account.token,
                json: offline(UUID().uuidString, from: now - 7200, minutes: 60)
            ).status == 201)
        let overlapping = try client.send(
            "POST", "/focus-sessions", token: account.token,
            json: offline(UUID().uuidString, from: now - 5400, minutes: 60))
        #expect(overlapping.status == 409 && overlapping.code == "session_overlap")
        #expect(try balance(account) == "70", "60 for the first session and 10 for first_session; nothing for the refused one")
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "1")
    }

    /// A new account cannot record the days before it existed (docs/economy.md, "Sessions start
    /// after their account"): an account made a minute ago uploads six backdated offline days,
    /// alone and in a batch, and a session starting a second before it was made; each is 422
    /// invalid_session, nothing is written and the balance stays. A session from then on is
    /// recorded.
    @Test(arguments: Transport.allCases)
    func aSessionStartingBeforeTheAccountIsRefused(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("farmer", verified: false, age: .seconds(60))
        let made = try TestEnvironment.scalar(
            "select extract(epoch from created_at)::text from app.users where id = $1::uuid", [account.id])
        let createdAt = Date(timeIntervalSince1970: try #require(made.flatMap(Double.init)))
        let before = try balance(account)
        for day in 1...6 {
            let body = offline(UUID().uuidString, from: createdAt - Double(day) * 86_400, minutes: 179)
            let refused = try client.send("POST", "/focus-sessions", token: account.token, json: body)
            #expect(refused.status == 422 && refused.code == "invalid_session", "\(refused.status) \(refused.text)")
            #expect(refused.json["detail"] as? String == "The session starts before your account was made.")
        }
        let edge = try client.send(
            "POST", "/focus-sessions", token: account.token, json: offline(UUID().uuidString, from: createdAt - 1, minutes: 0.5))
        #expect(edge.status == 422 && edge.code == "invalid_session", "\(edge.status) \(edge.text)")
        let batch = try client.send(
            "POST", "/focus-sessions/batch", token: account.token,
            json: #"{"sessions":["# + offline(UUID().uuidString, from: createdAt - 3 * 86_400, minutes: 60) + "]}")
        let results = batch.json["results"] as? [[String: Any]] ?? []
        #expect(batch.status == 200 && (results.first?["problem"] as? [String: Any])?["code"] as? String == "invalid_session")
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1::uuid", [account.id]) == "0")
        #expect(try balance(account) == before)

        let recorded = try client.send(
            "POST", "/focus-sessions", token: account.token, json: offline(UUID().uuidString, from: createdAt + 1, minutes: 0.5))
        #expect(recorded.status == 201, "\(recorded.status) \(recorded.text)")
    }

    static let invalidSessions: [(template: String, status: Int, code: String)] = [
        (#"{"id":"ID","started_at":"IN_ONE_HOUR","ended_at":"IN_TWO_HOURS"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"NOW","ended_at":"AN_HOUR_AGO"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"FOUR_HOURS_AGO","ended_at":"NOW"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"EIGHT_DAYS_AGO","ended_at":"EIGHT_DAYS_AGO_PLUS_30_MINUTES"}"#, 422, "invalid_session"),
        (#"{"id":"ID","started_at":"yesterday","ended_at":"NOW"}"#, 400, "invalid_field"),
        (#"{"id":"nope","started_at":"AN_HOUR_AGO","ended_at":"NOW"}"#, 400, "invalid_field"),
        (#"{"id":"ID","started_at":"AN_HOUR_AGO","ended_at":"NOW","coins":1000}"#, 400, "invalid_field"),
        (#"{"id":"ID","started_at":"AN_HOUR_AGO","ended_at":"NOW","planned_minutes":"lots"}"#, 400, "invalid_field"),
    ]

    @Test(arguments: Transport.allCases, invalidSessions)
    func invalidSessionsAreRefusedAndStoreNothing(transport: Transport, invalid: (template: String, status: Int, code: String)) throws {
        let client = transport.client
        let account = try client.register("invalid")
        let now = try TestEnvironment.databaseNow()
        let times = [
            ("IN_ONE_HOUR", now + 3600), ("IN_TWO_HOURS", now + 7200), ("FOUR_HOURS_AGO", now - 14400),
            ("EIGHT_DAYS_AGO_PLUS_30_MINUTES", now - 8 * 86400 + 1800), ("EIGHT_DAYS_AGO", now - 8 * 86400),
            ("AN_HOUR_AGO", now - 3600), ("NOW", now),
        ]
        let body = times.reduce(invalid.template.replacingOccurrences(of: "ID", with: UUID().uuidString)) { body, time in
            body.replacingOccurrences(of: time.0, with: time.1.rfc3339)
        }
        let result = try client.send("POST", "/focus-sessions", token: account.token, json: body)
        #expect(result.status == invalid.status)
        #expect(result.code == invalid.code)
        #expect(try TestEnvironment.scalar("select count(*) from app.focus_sessions where user_id = $1", [account.id]) == "0")
    }

    @Test(arguments: Transport.allCases)
    func liveSessionRunsOnTheServersClock(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("live")
        let started = try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#)
        #expect(started.status == 201)
        let session = try #require(started.json["session"] as? [String: Any])
        let id = try #require(session["id"] as? String)
        #expect(session["planned_minutes"] as? Int == 25 && session["ended_at"] is NSNull && session["minutes"] is NSNull)
        let second = try client.send("POST", "/focus-sessions/start", token: account.token, json: #"{"planned_minutes":25}"#)
        #expect(second.status == 409 && second.code == "session_in_progress" && second.json["id"] as? String == id)

        // Pretend it started 30 minutes ago: the plan (25) caps the minutes.
        try TestEnvironment.owner().execute(
            """
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
        // The balance counts first_session's reward (10) beside the 25 coins earned.
        let reply = SessionReply(session: Session(id: id, minutes: 25, coinsEarned: 25, rating: nil), balance: 35)
        #expect(try finished.decode(SessionReply.self) == reply)
        let again = try client.send("POST", "/focus-sessions/\(id)/finish", token: account.token)
        #expect(try again.decode(SessionReply.self) == reply)
        #expect(again.status == 200 && again.text == finished.text, "finishing again: the first answer, achievements_unlocked included")
        #expect(unlocked(finished) == ["first_session"])

        let list = try client.send("GET", "/focus-sessions", token: account.token)
        #expect(list.json["total_minutes"] as? Int == 25 && list.json["total_coins_earned"] as? Int == 25)
        let stats = try client.send("GET", "/me/stats", token: account.token).decode(Stats.self)
        #expect(stats.totalMinutes == 25)
        #expect(stats.currentStreakDays == 1)
        let bad = try client.send("GET", "/focus-sessions?from=yesterday", token: account.token)
        #expect(bad.status == 400 && bad.code == "invalid_field")
        #expect(try client.send("POST", "/focus-sessions/not-a-uuid/finish", token: account.token).status == 400)
    }

    /// Stats count by the UTC day of a session's end and the ISO week from Monday, by the
    /// database's clock: one session ends the instant today began, one an hour before (yesterday,
    /// and this week unless today is Monday). Run at 23:59:40 on a Sunday, the day and the week
    /// may end during the test: withinOneUTCDay reads everything within one day.
    @Test(arguments: Transport.allCases)
    func statsCountByTheDatabasesUTCDayAndISOWeek(transport: Transport) throws {
        let client = transport.client
        let (recorded, stats, daily, weekly, clock) = try TestEnvironment.withinOneUTCDay { clock in
            let account = try client.register("days")
            let sessions = [(from: clock.todayStart - 1800, minutes: 30.0), (from: clock.todayStart - 5400, minutes: 20.0)]
            let recorded = try sessions.map { session in
                try client.send(
                    "POST", "/focus-sessions", token: account.token,
                    json: offline(UUID().uuidString, from: session.from, minutes: session.minutes)
                ).status
            }
            return (
                recorded, try client.send("GET", "/me/stats", token: account.token),
                try client.send("GET", "/leaderboards/daily", token: account.token),
                try client.send("GET", "/leaderboards/weekly", token: account.token), clock
            )
        }
        #expect(recorded == [201, 201])
        let weekMinutes = clock.todayStart == clock.weekStart ? 30 : 50
        #expect(
            try stats.decode(Stats.self)
                == Stats(
                    todayMinutes: 30, weekMinutes: weekMinutes, totalMinutes: 50,
                    totalCoinsEarned: 50, currentStreakDays: 2, longestStreakDays: 2))
        let today = try daily.decode(Leaderboard.self), week = try weekly.decode(Leaderboard.self)
        #expect(today.periodStart == clock.todayStart.rfc3339 && today.me == Leaderboard.Standing(rank: 1, minutes: 30))
        #expect(week.periodStart == clock.weekStart.rfc3339 && week.me == Leaderboard.Standing(rank: 1, minutes: weekMinutes))
    }

    @Test(arguments: Transport.allCases, ["good", "fine", "bad"])
    func theTipMatchesTheRating(transport: Transport, rating: String) throws {
        let client = transport.client
        let account = try client.register("rating")
        let id = UUID().uuidString
        let body = offline(id, from: try TestEnvironment.databaseNow() - 3600, minutes: 30)
        #expect(try client.send("POST", "/focus-sessions", token: account.token, json: body).status == 201)
        let rated = try client.send("POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"\#(rating)"}"#)
        #expect(rated.status == 200)
        let reply = try rated.decode(RatingReply.self)
        #expect(reply.tip?.ratingLevel == rating)
        #expect(reply.session == Session(id: id.lowercased(), minutes: 30, coinsEarned: 30, rating: rating))
        let other = try client.register("rater")
        let foreign = try client.send("POST", "/focus-sessions/\(id)/rating", token: other.token, json: #"{"rating":"\#(rating)"}"#)
        #expect(foreign.status == 404 && foreign.code == "session_not_found")
    }

    @Test(arguments: Transport.allCases, ["/sync/mindfulness-tips", "/Sync/MindfulnessTips"])
    func tipSyncIsASetDifference(transport: Transport, path: String) throws {
        let client = transport.client
        let all = try TestEnvironment.owner().execute("select id::text from app.mindfulness_tips where active").compactMap { $0[0] }
        func ids(_ list: [String]) -> String { #"{"known_ids":["# + list.map { "\"\($0)\"" }.joined(separator: ",") + "]}" }
        func sync(_ list: [String]) throws -> SyncReply { try client.send("POST", path, json: ids(list)).decode(SyncReply.self) }

        let everything = try client.send("POST", path, json: ids(all))
        #expect(everything.status == 200)
        #expect(try everything.decode(SyncReply.self).missing.isEmpty)
        #expect(Set(try sync([]).missing.map(\.id)) == Set(all))
        let stale = UUID().uuidString.lowercased()
        let withStale = try sync(Array(all.prefix(all.count / 2)) + [stale])
        #expect(Set(withStale.missing.map(\.id)) == Set(all.dropFirst(all.count / 2)))
        #expect(withStale.removed == [stale])
        let bad = try client.send("POST", path, json: #"{"known_ids":[1,2]}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }
}

// Streak freezes end to end: buying (the ledger, at most two, racing buyers, each refusal
// changing nothing) and a missed day covered lazily, when the streak is read or a session ends.
// Each case runs in-process through the pipeline and over a real socket (Transport.swift).
// Days come from the database's clock (SQL date arithmetic on its now()), so the cases hold at
// any hour.
import Foundation
import Testing

struct StreakHTTPTests {
    func grant(_ account: Account, _ coins: Int) throws {
        try TestEnvironment.owner().execute("select app.grant_coins($1, $2, 'test')", [account.id, String(coins)])
    }

    func buy(_ client: Client, _ account: Account) throws -> HTTPResult {
        try client.send("POST", "/me/streak-freezes", token: account.token)
    }

    /// What a purchase may change: the balance, the freezes, the ledger rows.
    func snapshot(_ account: Account) throws -> String? {
        try TestEnvironment.scalar(
            """
            select md5(concat_ws('|', (select balance from app.users where id = $1),
                                 (select string_agg(id::text || coalesce(slot::text, '-'), ',' order by id)
                                  from app.streak_freezes where user_id = $1),
                                 (select count(*) from app.coin_ledger where user_id = $1)))
            """, [account.id])
    }

    /// A 30-minute session of `account` ending at noon (UTC, the account's zone) `daysAgo` days
    /// before the database's today, written as a phone's record would be.
    func focused(_ account: Account, daysAgo: Int) throws {
        try TestEnvironment.owner().execute(
            """
            with d as (select date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'
                              - make_interval(days => $2::integer) + interval '12 hours' as ends)
            insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
            select gen_random_uuid(), $1, 'offline', d.ends - interval '30 minutes', d.ends, tstzrange(d.ends - interval '30 minutes', d.ends), 30
            from d
            """, [account.id, String(daysAgo)])
    }

    /// Moves the account's held freezes' purchase `days` days back, as if bought then.
    func boughtEarlier(_ account: Account, days: Int) throws {
        try TestEnvironment.owner().execute(
            "update app.streak_freezes set bought_at = bought_at - make_interval(days => $2::integer) where user_id = $1",
            [account.id, String(days)])
    }

    /// The events cursor now: what happens next is listed by `events(after:)`. It waits until every
    /// event committed so far can be listed, so a grant just before is not listed after it.
    func cursor(_ client: Client, _ account: Account) throws -> Int {
        try TestEnvironment.eventsReadable()
        return try #require(client.send("GET", "/events", token: account.token).json["next"] as? Int)
    }

    /// The events of `type` after `after`, asked again for up to 10 s while fewer than `atLeast`: an
    /// event is listed once no transaction that began before it still runs (docs/performance.md,
    /// "Events"), and other tests write at the same time.
    func events(_ client: Client, _ account: Account, after: Int, type: String, atLeast: Int = 1) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let events = try client.send("GET", "/events?after=\(after)", token: account.token).json["events"] as? [[String: Any]] ?? []
            let found = events.filter { $0["type"] as? String == type }.compactMap { $0["data"] as? [String: Any] }
            if found.count >= atLeast || Date() > deadline { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func day(_ daysAgo: Int) throws -> String? {
        try TestEnvironment.scalar(
            "select ((now() at time zone 'UTC')::date - $1::integer)::text", [String(daysAgo)])
    }

    @Test(arguments: Transport.allCases)
    func twoFreezesAreHeldAtMostAndPaidThroughTheLedger(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("freezer")
        try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
        try grant(account, 200)
        let mark = try cursor(client, account)
        let first = try buy(client, account)
        #expect(first.status == 201, "\(first.text)")
        #expect(first.json["freezes_held"] as? Int == 1 && first.json["balance"] as? Int == 150 && first.json["price"] as? Int == 50)
        let second = try buy(client, account)
        #expect(second.status == 201 && second.json["freezes_held"] as? Int == 2 && second.json["balance"] as? Int == 100)

        let before = try snapshot(account)
        let third = try buy(client, account)
        #expect(third.status == 409 && third.code == "streak_freezes_full", "\(third.text)")
        #expect(third.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        #expect(try snapshot(account) == before, "a refused purchase changes nothing")

        let stats = try client.send("GET", "/me/stats", token: account.token)
        #expect(stats.status == 200 && stats.json["streak_freezes_held"] as? Int == 2)
        #expect(stats.json["streak_frozen_days"] as? [String] == [])
        let balances = try events(client, account, after: mark, type: "balance.changed", atLeast: 2).compactMap { $0["balance"] as? Int }
        #expect(balances == [150, 100], "balance.changed for each purchase, none for the refusal")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
    }

    @Test(arguments: Transport.allCases)
    func purchaseErrorsChangeNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("poorfreezer")
        try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
        try grant(account, 30)
        let before = try snapshot(account)
        let poor = try buy(client, account)
        #expect(poor.status == 409 && poor.code == "insufficient_funds")
        #expect(poor.json["balance"] as? Int == 30 && poor.json["price"] as? Int == 50)
        let noToken = try client.send("POST", "/me/streak-freezes")
        #expect(noToken.status == 401 && noToken.code == "unauthorized")
        let badToken = try client.send("POST", "/me/streak-freezes", token: "not-a-token")
        #expect(badToken.status == 401)
        try TestEnvironment.owner().execute(
            "update app.auth_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day' where user_id = $1",
            [account.id])
        let expired = try buy(client, account)
        #expect(expired.status == 401 && expired.code == "unauthorized")
        let wrongMethod = try client.send("GET", "/me/streak-freezes", token: account.token)
        #expect(wrongMethod.status == 405)
        #expect(try snapshot(account) == before)
    }

    @Test(arguments: Transport.allCases)
    func racingPurchasesHoldTwoAndPayTwice(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("racer")
        try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
        try grant(account, 1000)
        let statuses = try concurrently(12) { _ in try buy(client, account).status }
        print(
            "\(transport): 12 concurrent freeze purchases → 201: \(statuses.filter { $0 == 201 }.count), 409: \(statuses.filter { $0 == 409 }.count)"
        )
        #expect(statuses.filter { $0 == 201 }.count == 2)
        #expect(statuses.filter { $0 == 409 }.count == 10)
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "900")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.coin_ledger where user_id = $1 and entry = 'freeze'", [account.id]) == "2")
        #expect(try TestEnvironment.scalar("select count(*) from report.ledger_reconciliation") == "0")
    }

    @Test(arguments: Transport.allCases)
    func aMissedDayIsCoveredWhenTheStreakIsRead(transport: Transport) throws {
        let client = transport.client
        // Built and read within one UTC day: a day ending between the session two days ago and
        // the read would leave two days missed, which one freeze does not cover.
        let (account, yesterday, stats, again, frozen) = try TestEnvironment.withinOneUTCDay { _ in
            let account = try client.register("missed")
            try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
            try grant(account, 100)
            #expect(try buy(client, account).status == 201)
            // Focused two days ago, with the freeze held since the day before; yesterday missed.
            try boughtEarlier(account, days: 3)
            try focused(account, daysAgo: 2)
            let yesterday = try #require(try day(1))
            let mark = try cursor(client, account)
            let stats = try client.send("GET", "/me/stats", token: account.token)
            let again = try client.send("GET", "/me/stats", token: account.token)
            return (account, yesterday, stats, again, try events(client, account, after: mark, type: "streak.frozen"))
        }
        #expect(stats.status == 200)
        #expect(stats.json["current_streak_days"] as? Int == 1, "the streak is kept, not lengthened: \(stats.text)")
        #expect(stats.json["streak_frozen_days"] as? [String] == [yesterday])
        #expect(stats.json["streak_freezes_held"] as? Int == 0 && stats.json["streak_freezes_used"] as? Int == 1)
        #expect(again.text == stats.text, "reading again uses nothing more")
        #expect(frozen.count == 1)
        #expect(frozen.first?["day"] as? String == yesterday && frozen.first?["freezes_held"] as? Int == 0)
        // The balance paid once, the freeze used once: the streak and the ledger agree.
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "50")
    }

    @Test(arguments: Transport.allCases)
    func racingReadsUseOneFreeze(transport: Transport) throws {
        let client = transport.client
        let (account, answers) = try TestEnvironment.withinOneUTCDay { _ in  // one day, as above
            let account = try client.register("racingreads")
            try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
            try grant(account, 100)
            #expect(try buy(client, account).status == 201)
            #expect(try buy(client, account).status == 201)
            try boughtEarlier(account, days: 3)
            try focused(account, daysAgo: 2)
            return (account, try concurrently(8) { _ in try client.send("GET", "/me/stats", token: account.token) })
        }
        #expect(Set(answers.map(\.status)) == [200])
        #expect(Set(answers.compactMap { $0.json["streak_freezes_held"] as? Int }) == [1], "one freeze used, whoever read first")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.streak_freezes where user_id = $1 and covered_day is not null", [account.id]) == "1")
    }

    @Test(arguments: Transport.allCases)
    func aRecordedSessionCoversTheDayMissedBeforeIt(transport: Transport) throws {
        let client = transport.client
        let (recorded, covered, twoDaysAgo, stats) = try TestEnvironment.withinOneUTCDay { _ in  // one day, as above
            let account = try client.register("recorder")
            try TestEnvironment.holdEveryAchievement(account.id)  // its coins and events are this test's own
            try grant(account, 100)
            #expect(try buy(client, account).status == 201)
            try boughtEarlier(account, days: 4)
            try focused(account, daysAgo: 3)
            // Missed two days ago; the phone records yesterday's session now: its end covers the gap.
            let ends = try #require(
                try TestEnvironment.scalar(
                    "select to_char((date_trunc('day', now() at time zone 'UTC') - interval '12 hours'), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
            )
            let starts = try #require(
                try TestEnvironment.scalar(
                    "select to_char((date_trunc('day', now() at time zone 'UTC') - interval '12 hours 30 minutes'), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
                ))
            let recorded = try client.send(
                "POST", "/focus-sessions", token: account.token,
                json: #"{"id":"\#(UUID().uuidString)","started_at":"\#(starts)","ended_at":"\#(ends)"}"#)
            let covered = try TestEnvironment.scalar(
                "select covered_day::text from app.streak_freezes where user_id = $1", [account.id])
            return (recorded, covered, try day(2), try client.send("GET", "/me/stats", token: account.token))
        }
        #expect(recorded.status == 201, "\(recorded.text)")
        #expect(covered == twoDaysAgo, "the session's end used the freeze, before any read")
        #expect(stats.json["current_streak_days"] as? Int == 2)
    }
}

// The scheduled jobs as the server runs them (Live/JobRunner.swift over sql/api/140_jobs.sql):
// a prune that outruns its budget is cancelled and recorded, and the jobs after it in the same
// pass still settle a room whose members vanished and expire a gift past its expiry. The prune
// is made slow by a lock on a table it prunes, held by a second connection for the whole pass (as
// a DBA's long transaction, or a prune grown past its budget, would hold it up); its budget is
// made short. A backlog is pruned in batches within one run; a run stops when a fifth of its
// budget is left. Serialized: it changes the shared rows of app.scheduled_jobs and puts them back.
import Foundation
import Testing

@testable import FocusIsland

@Suite(.serialized) struct JobsHTTPTests {
    /// Makes `a` and `b` friends: b asks, a accepts.
    func befriend(_ client: Client, _ a: Account, _ b: Account) throws {
        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let id = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        #expect(try client.send("POST", "/friend-requests/\(id)/accept", token: a.token).status == 200)
    }

    /// A started room of `host` and two friends whose phones vanished: moved back two hours, past
    /// its 20-minute plan and the grace.
    func vanishedRoom(_ client: Client) throws -> (id: String, member: Account) {
        let host = try client.register("host")
        let friends = try (0..<2).map { _ in try client.register("friend") }
        for friend in friends { try befriend(client, host, friend) }
        let opened = try client.send("POST", "/rooms", token: host.token, json: #"{"planned_minutes":20}"#)
        let room = opened.json["room"] as? [String: Any] ?? [:]
        let id = room["id"] as? String ?? "", code = room["code"] as? String ?? ""
        for friend in friends { #expect(try client.send("POST", "/rooms/\(code)/join", token: friend.token).status == 200) }
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        let owner = try TestEnvironment.owner()
        _ = try owner.execute(
            "update app.rooms set created_at = created_at - interval '2 hours', started_at = started_at - interval '2 hours' "
                + "where id = $1::uuid", [id])
        _ = try owner.execute(
            "update app.focus_sessions s set started_at = started_at - interval '2 hours', "
                + "occupies = tstzrange(lower(occupies) - interval '2 hours', upper(occupies)) "
                + "where s.id in (select session_id from app.room_members where room_id = $1::uuid)", [id])
        return (id, host)
    }

    /// A pending gift of 10 coins between two new friends, written as POST /gifts would have
    /// written it eight days ago (the gift and its sender's hold), so it is past its expiry; the
    /// sender's balance before it.
    func expiredGift(_ client: Client) throws -> (id: String, sender: Account, balance: String?) {
        let sender = try client.register("giver"), receiver = try client.register("taker")
        try befriend(client, sender, receiver)
        _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 100, 'gift test')", [sender.id])
        let balance = try TestEnvironment.scalar("select balance::text from app.users where id = $1::uuid", [sender.id])
        let owner = try TestEnvironment.owner()
        let id = try #require(
            try owner.execute(
                "insert into app.gifts (sender_id, receiver_id, coins, paid, created_at, expires_at) "
                    + "values ($1::uuid, $2::uuid, 10, 10, now() - interval '8 days', now() - interval '1 day') returning id::text",
                [sender.id, receiver.id]
            ).first?.first ?? nil)
        _ = try owner.execute(
            "insert into app.coin_ledger (user_id, entry, amount, reason, gift_id) values ($1::uuid, 'gift', -10, 'gift sent', $2::uuid)",
            [sender.id, id])
        return (id, sender, balance)
    }

    @Test func aPruneThatOutrunsItsBudgetHoldsUpNoOtherJob() throws {
        let client = Transport.inProcess.client
        let room = try vanishedRoom(client)
        let gift = try expiredGift(client)
        let owner = try TestEnvironment.owner()
        let budget = try #require(try TestEnvironment.scalar("select budget::text from app.scheduled_jobs where name = 'prune'"))
        defer {
            _ = try? owner.execute(
                "update app.scheduled_jobs set budget = $1::interval, last_error = null, failures = 0 where name = 'prune'", [budget])
        }
        _ = try owner.execute(
            "update app.scheduled_jobs set budget = interval '200 milliseconds', last_error = null, failures = 0 where name = 'prune'")
        // The fault: a second connection holds a lock the prune's delete waits for.
        let holder = try TestEnvironment.owner()
        try holder.execute("begin; lock table app.account_deletion_requests in share mode")
        _ = try owner.execute(
            "update app.scheduled_jobs set next_run_at = now() where name in ('prune', 'settle_rooms', 'expire_gifts')")
        // The server's own pass, once (its thread may have claimed some of them first: the rows
        // below tell either way).
        let runner = JobRunner(conninfo: try TestEnvironment.listenURL(), logger: Logger(format: .off))
        let outcomes = try runner.runDue(on: PGConnection(conninfo: TestEnvironment.listenURL(), namedStatements: false))
        try holder.execute("rollback")
        if let prune = outcomes.first(where: { $0.job == "prune" }) {
            #expect(prune.error?.hasPrefix("past its budget of 200 ms: canceling statement due to statement timeout") == true)
            #expect(outcomes.first?.job == "prune", "the shortest budget runs first: the others run after its failure")
        }
        #expect(
            try TestEnvironment.scalar(
                "select failing::text || ' ' || consecutive_failures || ' ' || (last_failed_at > now() - interval '1 minute')::text "
                    + "|| ' ' || (last_error like 'past its budget of 200 ms: canceling statement due to statement timeout%')::text "
                    + "from report.scheduled_job_status where job = 'prune'") == "true 1 true true",
            "the prune's failure is visible: when, why, how many in a row")
        #expect(
            try TestEnvironment.scalar(
                "select string_agg(job || ' ' || failing::text, ', ' order by job) from report.scheduled_job_status "
                    + "where job in ('settle_rooms', 'expire_gifts')") == "expire_gifts false, settle_rooms false")
        let settled = try client.send("GET", "/rooms/\(room.id)", token: room.member.token)
        let status = (settled.json["room"] as? [String: Any])?["status"] as? String
        #expect(status == "failed", "the room was settled: its vanished members failed it")
        #expect(
            try TestEnvironment.scalar("select status from app.gifts where id = $1::uuid", [gift.id]) == "expired",
            "the gift expired")
        #expect(
            try TestEnvironment.scalar("select balance::text from app.users where id = $1::uuid", [gift.sender.id]) == gift.balance,
            "... and its sender got the coins back")
    }

    /// A backlog of 2500 Idempotency-Keys past their retention: the prune deletes them in steps
    /// of 1000, each committed on its own, in one run within its budget.
    @Test func thePruneDeletesABacklogInBatches() throws {
        let owner = try TestEnvironment.owner()
        let scope = "jobs-test-" + UUID().uuidString
        _ = try owner.execute(
            "insert into app.idempotency_keys (scope, key, route, request_digest, created_at) "
                + "select $1, 'k' || i, 'POST /gifts', '\\x00', now() - interval '2 days' from generate_series(1, 2500) i", [scope])
        // The test server's own runner may claim the due prune first (it asks once a minute):
        // then this run has no prune to run, and asks again until one of its runs did it.
        let runner = JobRunner(conninfo: try TestEnvironment.listenURL(), logger: Logger(format: .off))
        var ran = false
        for _ in 0..<5 where !ran {
            _ = try owner.execute("update app.scheduled_jobs set next_run_at = now() where name = 'prune'")
            let outcomes = try runner.runDue(on: PGConnection(conninfo: TestEnvironment.listenURL(), namedStatements: false))
            if let prune = outcomes.first(where: { $0.job == "prune" }) {
                #expect(prune.error == nil && !prune.unfinished)
                ran = true
            }
        }
        #expect(ran, "one of five runs claimed the prune")
        #expect(try TestEnvironment.scalar("select count(*) from app.idempotency_keys where scope = $1", [scope]) == "0")
        #expect(try TestEnvironment.scalar("select failing::text from report.scheduled_job_status where job = 'prune'") == "false")
    }

    /// A run goes on while a fifth of its budget is left, and stops below that (to come again
    /// in a minute) rather than start a step the budget would likely cancel.
    @Test func aRunStopsWhenAFifthOfItsBudgetIsLeft() {
        #expect(JobRunner.startsAnotherStep(left: 30_000, budget: 30_000))
        #expect(JobRunner.startsAnotherStep(left: 6_000, budget: 30_000))
        #expect(!JobRunner.startsAnotherStep(left: 5_999, budget: 30_000))
        #expect(!JobRunner.startsAnotherStep(left: 0, budget: 30_000))
    }
}

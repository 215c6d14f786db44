import Dispatch
import Glibc
import Synchronization
import Testing

// The pool's calls without a waiting thread (DB_ASYNC=on, Database/DatabasePoller.swift): more
// calls than connections are all answered, a call waits for a connection no longer than the
// checkout deadline, a statement's error reaches its caller and leaves the pool working, and a
// session that died while idle is reopened before the next call, also when the reopened sessions
// trade socket numbers (a socket joins the poller's epoll set once per session, not per call), and
// a session lent to a blocking caller between two calls is watched again. With an answer wait
// (DB_ANSWER_WAIT), an answer in by then is finished on the sending thread without leaving it,
// and a later one leaves it once; a busy pool is waited for within the same wait, a connection
// checked in by then carries the call without leaving, and a call that waited in vain leaves
// once and is answered in its turn. The HTTP suites run
// the same path end to end (the test server's configuration is the default, DB_ASYNC=on, and
// scripts/test runs them again with DB_ANSWER_WAIT=0, every answer through the poller).
@testable import FocusIsland

@Suite struct AsyncPoolDatabaseTests {
    /// What `submit` answered, once it has.
    final class Outcome: Sendable {
        private let value = Mutex<Result<[[String?]], DatabaseError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ outcome: Result<[[String?]], DatabaseError>) {
            value.withLock { $0 = outcome }
            done.signal()
        }

        /// Whether the answer is in already (without waiting for it).
        var answered: Bool { value.withLock { $0 != nil } }

        func wait() -> Result<[[String?]], DatabaseError>? {
            done.wait()
            return value.withLock { $0 }
        }
    }

    private func submit(_ pool: ConnectionPool, _ sql: String, _ parameters: [String?] = []) -> Outcome {
        let outcome = Outcome()
        pool.submit(sql, sql, parameters) { outcome.set($0) }
        return outcome
    }

    private func rows(_ outcome: Outcome) -> [[String?]]? {
        guard case .success(let rows) = outcome.wait() else { return nil }
        return rows
    }

    private func pool(
        capacity: Int, checkoutTimeout: Double = 5, poller: DatabasePoller, answerWait: UInt64 = 0
    ) throws -> ConnectionPool {
        ConnectionPool(
            conninfo: try TestEnvironment.ownerURL(), capacity: capacity, checkoutTimeout: checkoutTimeout,
            namedStatements: true, poller: poller, answerWait: answerWait)
    }

    /// How often `submit` said its call left the sending thread.
    final class Leaves: Sendable {
        private let count = Atomic<Int>(0)
        func leave() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    private func submit(_ pool: ConnectionPool, _ sql: String, leaves: Leaves) -> Outcome {
        let outcome = Outcome()
        pool.submit(sql, sql, [], leaving: leaves.leave) { outcome.set($0) }
        return outcome
    }

    @Test func moreCallsThanConnectionsAreAllAnsweredInTurn() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 2, poller: poller)
        #expect(pool.isAsynchronous)
        let outcomes = (0..<20).map { submit(pool, "select $1::text || '!'", [String($0)]) }
        #expect(outcomes.map(rows) == (0..<20).map { [["\($0)!"]] })
        #expect(pool.usage().inUse == 0 && pool.usage().waiting == 0)
    }

    @Test func aCallWaitingPastTheCheckoutDeadlineIsRefusedWhileTheHeldOneFinishes() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, checkoutTimeout: 0.2, poller: poller)
        // In the pool's database: advisory locks are per database.
        let holder = try TestEnvironment.owner()
        try holder.execute("begin; select pg_advisory_xact_lock(280028)")
        // Holds the pool's one connection until the lock above is released.
        let held = submit(pool, "select pg_advisory_xact_lock(280028)::text")
        let refused = submit(pool, "select 1")
        guard case .failure(let error) = refused.wait() else {
            Issue.record("a call with no free connection was answered")
            return
        }
        #expect(error.sqlState == DatabaseError.poolTimeoutState)
        #expect(Problem(error).status == 503)
        try holder.execute("commit")
        #expect(rows(held) == [[""]])
        #expect(pool.usage().checkoutTimeouts == 1)
        #expect(rows(submit(pool, "select 2::text")) == [["2"]])
    }

    @Test func aStatementsErrorReachesItsCallerAndTheSessionServesTheNext() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller)
        guard case .failure(let error) = submit(pool, "select (1 / $1::integer)::text", ["0"]).wait() else {
            Issue.record("a division by zero was answered")
            return
        }
        #expect(error.sqlState == "22012")
        #expect(rows(submit(pool, "select (1 / $1::integer)::text", ["1"])) == [["1"]])
    }

    @Test func aSessionEndedWhileIdleIsReopenedBeforeTheNextCall() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller)
        let first = rows(submit(pool, "select pg_backend_pid()::text"))?.first?.first ?? nil
        let admin = try PGConnection(conninfo: try TestEnvironment.adminURL())
        // With a timeout pg_terminate_backend answers once the backend is gone.
        #expect(try admin.execute("select pg_terminate_backend($1::integer, 10000)::text", [first]) == [["true"]])
        let second = rows(submit(pool, "select pg_backend_pid()::text"))?.first?.first ?? nil
        #expect(first != nil && second != nil && first != second)
    }

    @Test func sessionsReopenedAtOnceAreWatchedWhicheverGetsTheOldSocketNumber() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 2, poller: poller)
        let admin = try PGConnection(conninfo: try TestEnvironment.adminURL())
        var ended: Set<String> = []
        // Each round ends every idle session, so the next two calls reopen them together (the
        // kernel hands out the lowest free descriptor: a new session may get an old number).
        for round in 0..<3 {
            let pair = (0..<2).map { _ in submit(pool, "select pg_backend_pid()::text from pg_sleep(0.05)") }
            let pids = pair.map { rows($0)?.first?.first ?? nil }
            #expect(pids.allSatisfy { $0 != nil && !ended.contains($0 ?? "") }, "round \(round)")
            for case let pid? in Set(pids) {
                #expect(try admin.execute("select pg_terminate_backend($1::integer, 10000)::text", [pid]) == [["true"]])
                ended.insert(pid)
            }
        }
        #expect(rows(submit(pool, "select 'after'")) == [["after"]])
        #expect(pool.usage().inUse == 0 && pool.usage().waiting == 0)
    }

    @Test func anAnswerWithinTheWaitIsFinishedOnTheSendingThreadWithoutLeavingIt() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        // A second: far more than a trivial statement takes, however loaded the machine.
        let pool = try pool(capacity: 1, poller: poller, answerWait: 1_000_000)
        _ = rows(submit(pool, "select 'opened'"))  // the session's first use opens it on another thread
        let leaves = Leaves()
        let outcome = submit(pool, "select 'here'", leaves: leaves)
        #expect(outcome.answered && leaves.value == 0)
        #expect(rows(outcome) == [["here"]])
        #expect(pool.usage().inUse == 0)
    }

    @Test func anAnswerLaterThanTheWaitLeavesOnceAndComesThroughThePoller() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller, answerWait: 1_000)
        _ = rows(submit(pool, "select 'opened'"))
        let leaves = Leaves()
        let slow = submit(pool, "select 'late' from pg_sleep(0.3)", leaves: leaves)
        #expect(!slow.answered && leaves.value == 1)
        // Behind it (the one connection is busy): waits the answer wait for it, then leaves.
        let queued = submit(pool, "select 'queued'", leaves: leaves)
        #expect(leaves.value == 2)
        #expect(rows(slow) == [["late"]] && rows(queued) == [["queued"]])
        #expect(leaves.value == 2)
    }

    @Test func aConnectionCheckedInWithinTheWaitCarriesTheCallWithoutLeaving() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller, answerWait: 2_000_000)
        _ = rows(submit(pool, "select 'opened'"))  // opened on another thread: suspended once
        let suspended = pool.usage().suspended
        let leaves = Leaves()
        // The one connection, held for 0.2 s by a call on another thread (answered within its wait).
        let held = Outcome()
        DispatchQueue.global().async {
            pool.submit("held", "select 'held' from pg_sleep(0.2)", [], leaving: leaves.leave) { held.set($0) }
        }
        let start = monotonicMicroseconds()
        while pool.usage().inUse == 0 && monotonicMicroseconds() - start < 5_000_000 { usleep(1_000) }
        #expect(pool.usage().inUse == 1)
        let after = submit(pool, "select 'after'", leaves: leaves)
        #expect(after.answered && leaves.value == 0)
        #expect(rows(held) == [["held"]] && rows(after) == [["after"]])
        #expect(pool.usage().inUse == 0 && pool.usage().waiting == 0)
        #expect(pool.usage().suspended == suspended)
    }

    @Test func callsThatWaitedInVainAreQueuedOnceAndAnsweredInTurn() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller, answerWait: 50_000)
        _ = rows(submit(pool, "select 'opened'"))
        let suspended = pool.usage().suspended
        let holder = try TestEnvironment.owner()
        try holder.execute("begin; select pg_advisory_xact_lock(280029)")
        let leaves = Leaves()
        let held = submit(pool, "select pg_advisory_xact_lock(280029)::text", leaves: leaves)
        let first = submit(pool, "select clock_timestamp()::text", leaves: leaves)
        let second = submit(pool, "select clock_timestamp()::text", leaves: leaves)
        #expect(leaves.value == 3 && pool.usage().waiting == 2)
        try holder.execute("commit")
        #expect(rows(held) == [[""]])
        let times = [first, second].map { rows($0)?.first?.first ?? nil }
        #expect(times.allSatisfy { $0 != nil } && (times[0] ?? "") < (times[1] ?? ""))
        #expect(leaves.value == 3 && pool.usage().inUse == 0 && pool.usage().waiting == 0)
        #expect(pool.usage().suspended == suspended + 3, "each leave counted for the metrics")
    }

    @Test func theRequestIsSuspendedOnceAndAnAnswerInTimeStaysWithItsWorker() {
        final class Suspends: Sendable {
            let count = Atomic<Int>(0)
        }
        let suspends = Suspends()
        let inTime = Handoff(suspend: { suspends.count.add(1, ordering: .relaxed) })
        #expect(inTime.keep { Response(status: 200) })
        #expect(inTime.answered?().status == 200 && suspends.count.load(ordering: .relaxed) == 0)
        let late = Handoff(suspend: { suspends.count.add(1, ordering: .relaxed) })
        late.leave()
        late.leave()  // a retry that leaves again
        #expect(suspends.count.load(ordering: .relaxed) == 1)
        #expect(!late.keep { Response(status: 200) } && late.answered == nil)
    }

    @Test func aSessionLentToABlockingCallerBetweenTwoCallsIsWatchedAgain() throws {
        let poller = DatabasePoller()
        defer { poller.stop() }
        let pool = try pool(capacity: 1, poller: poller)
        let first = rows(submit(pool, "select pg_backend_pid()::text"))?.first?.first ?? nil
        // The same session, now blocking: its socket stays in the poller's set, disarmed.
        let blocking = try pool.withConnection { connection throws(DatabaseError) in
            try connection.execute("select pg_backend_pid()::text from pg_sleep(0.05)")
        }
        let second = rows(submit(pool, "select pg_backend_pid()::text"))?.first?.first ?? nil
        #expect(first != nil && blocking == [[first]] && second == first)
    }
}

// ConnectionPool: a fixed number of libpq connections, lent to one request at a time.
//
// The pool is the server's only shared mutable state, behind the Mutex `state`: the idle
// connections, how many are open, and the checkouts waiting, each on a semaphore of its own
// that a check-in signals (oldest first). Connections open lazily, so the server starts (and answers /health) while the
// database is down. A checkout never waits longer than `checkoutTimeout` (DB_POOL_TIMEOUT): a
// slow database must not hold every HTTP worker forever, so the request answers 503 instead.
// A connection is lent only if it is usable: one whose server went away (a restart, a crash)
// is reopened before use, and after any connection failure every idle connection is checked
// again before its next use, so no request after recovery meets a stale one. A write refused as
// read-only (25006: the session's server was demoted, a failover) closes every session the same
// way, and the reconnects go through the URL's hosts to the new primary
// (target_session_attrs=read-write, docs/operations.md).
// `submit` runs a statement without a waiting thread (with a poller, DB_ASYNC=on): it is sent
// on a free connection, or queued with the blocking checkouts (first come, first served) until
// one is checked in or the checkout deadline passes, and answered on the poller's thread
// (Database/DatabasePoller.swift). The thread that sends it first waits up to `answerWait`
// (DB_ANSWER_WAIT) for the answer itself: a statement answered by then is finished on that
// thread, without the poller's wake-up and the hand-back (docs/performance.md, "The answer wait").
// A busy pool is waited for within the same wait, as a blocking checkout, before the call is
// queued (`awaitConnection`).
import Dispatch
import Synchronization

public final class ConnectionPool: Sendable {
    private let conninfo: String
    private let capacity: Int
    private let checkoutTimeout: Double
    private let namedStatements: Bool
    /// How long (µs) the thread that sends a `submit` statement waits for its answer before the
    /// poller takes over; 0: never.
    private let answerWait: UInt64
    /// Watches the answers of `submit`'s statements; nil: `submit` waits on the caller's thread.
    private let poller: DatabasePoller?
    private struct State {
        var idle: [PGConnection] = []
        var opened = 0
        /// Requests waiting for a connection right now, oldest first (their number: logs, metrics).
        var waiters: [Waiting] = []
    }
    /// A checkout waiting for a connection: a check-in signals it once.
    private final class Waiter: Sendable {
        let bell = DispatchSemaphore(value: 0)
    }
    /// A thread blocked in `withConnection`, or a call that `submit` queued.
    private enum Waiting {
        case thread(Waiter)
        case call(Call)

        func `is`(_ waiter: Waiter) -> Bool {
            if case .thread(let other) = self { return other === waiter }
            return false
        }
    }

    /// A statement `submit` runs: its prepared name, text and parameters, and what gets the
    /// answer (on the poller's thread, or the caller's when it fails at once).
    final class Call: Sendable {
        let name: String
        let sql: String
        let parameters: [String?]
        let done: @Sendable (Result<[[String?]], DatabaseError>) -> Void
        /// When it stops waiting for a connection (monotonic µs).
        let deadline: UInt64

        init(
            name: String, sql: String, parameters: [String?], deadline: UInt64,
            done: @escaping @Sendable (Result<[[String?]], DatabaseError>) -> Void
        ) {
            self.name = name
            self.sql = sql
            self.parameters = parameters
            self.deadline = deadline
            self.done = done
        }
    }
    private let state = Mutex(State())
    /// Checkouts that waited `checkoutTimeout` in vain (for metrics).
    private let timeouts = Counter()
    /// `submit` calls that left the sending thread (for metrics: with the request count, how
    /// often the answer wait sufficed).
    private let suspensions = Counter()

    /// The pool at one moment, for GET /metrics.
    public struct Usage: Sendable {
        public var capacity: Int
        public var inUse: Int
        public var waiting: Int
        public var checkoutTimeouts: Int
        public var suspended: Int
    }

    public func usage() -> Usage {
        let (inUse, waiting) = state.withLock { ($0.opened - $0.idle.count, $0.waiters.count) }
        return Usage(
            capacity: capacity, inUse: inUse, waiting: waiting, checkoutTimeouts: timeouts.current,
            suspended: suspensions.current)
    }

    /// `checkoutTimeout`: seconds a request may wait for a free connection before it fails.
    /// `namedStatements`: false behind a transaction-pooling PgBouncer (DB_PREPARED_STATEMENTS=off).
    /// `asynchronous`: `submit` sends and returns, the answer arriving on a poller thread
    /// shared by the pools made with the same `poller` (DB_ASYNC=on).
    public convenience init(
        conninfo: String, capacity: Int, checkoutTimeout: Double = 5, namedStatements: Bool = true
    ) {
        self.init(
            conninfo: conninfo, capacity: capacity, checkoutTimeout: checkoutTimeout, namedStatements: namedStatements,
            poller: nil)
    }

    init(
        conninfo: String, capacity: Int, checkoutTimeout: Double, namedStatements: Bool, poller: DatabasePoller?,
        answerWait: UInt64 = 0
    ) {
        self.conninfo = conninfo
        self.answerWait = answerWait
        self.capacity = capacity
        self.checkoutTimeout = checkoutTimeout
        self.namedStatements = namedStatements
        self.poller = poller
        poller?.register(self)
    }

    /// Whether `submit` returns before the answer is in.
    var isAsynchronous: Bool { poller != nil }

    /// Runs one statement (prepared under `name`, as `executePrepared`) and gives its rows or
    /// error to `done`. With a poller: the statement is sent on a free connection, or on one
    /// checked in within `answerWait`, and its answer awaited here for what is left of
    /// `answerWait`; answered by then (or failed at once), `done` runs
    /// on this thread before `submit` returns. Otherwise `leaving` runs on this thread first
    /// (the caller's last moment to suspend its request), then `submit` returns and `done` runs
    /// later on the poller's thread: the answer came later, or no connection was free and the
    /// statement is sent when one is checked in within `checkoutTimeout` (else `done` gets the
    /// pool timeout). Without a poller it waits, as `withConnection` does, and `done` runs
    /// before it returns.
    func submit(
        _ name: String, _ sql: String, _ parameters: [String?], leaving: () -> Void = {},
        done: @escaping @Sendable (Result<[[String?]], DatabaseError>) -> Void
    ) {
        guard poller != nil else {
            done(
                Result { () throws(DatabaseError) -> [[String?]] in
                    try withConnection { connection throws(DatabaseError) in
                        try connection.executePrepared(name, sql, parameters)
                    }
                })
            return
        }
        // Each time the call leaves this thread, counted for the metrics.
        func leave() {
            suspensions.add()
            leaving()
        }
        let now = monotonicMicroseconds()
        let call = Call(
            name: name, sql: sql, parameters: parameters, deadline: now + UInt64(checkoutTimeout * 1_000_000), done: done)
        let waitEnds = now + answerWait
        // With an answer wait, a busy pool is waited for here within the same wait, as a thread
        // (see `awaitConnection`); without one the call is queued at once. The waiter (a
        // semaphore) is made only when the pool is busy: most calls find a connection free.
        var waiter: Waiter?
        var lent = state.withLock { state in
            let lent = lend(&state)
            if case .none = lent {
                if answerWait > 0 {
                    let thread = Waiter()
                    state.waiters.append(.thread(thread))
                    waiter = thread
                } else {
                    // Before it is queued: a check-in on another thread may send it at once.
                    leave()
                    state.waiters.append(.call(call))
                }
            }
            return lent
        }
        if case .none = lent, let waiter { lent = awaitConnection(waiter, for: call, until: waitEnds, leaving: leave) }
        let wait = waitEnds.subtractingReportingOverflow(monotonicMicroseconds())
        let left = wait.overflow ? 0 : wait.partialValue
        switch lent {
        case .idle(let connection): start(call, on: connection, wait: left, leaving: leave)
        case .open:
            start(
                call, on: PGConnection(unopened: conninfo, namedStatements: namedStatements), wait: left,
                leaving: leave)
        case .none: poller?.startIfNeeded()  // a check-in starts it, or the poller's `expire` ends it
        }
    }

    /// A busy pool, waited for by the sending thread until `end` (monotonic µs) as a blocking
    /// checkout would; then the call takes the thread's place in the queue (`leaving` first) and
    /// is sent at a check-in. Why wait at all: under load nearly every statement meets a busy
    /// pool, and a call sent at a check-in always comes back through the poller, which wakes two
    /// threads more per request (the poller, then the worker through libmicrohttpd's eventfd); a
    /// connection checked in within the answer wait sends the statement from this thread, whose
    /// answer can come back here (docs/performance.md, "The pool waited for within the answer
    /// wait"). `.none`: queued.
    private func awaitConnection(_ waiter: Waiter, for call: Call, until end: UInt64, leaving: () -> Void) -> Lend {
        while true {
            let now = monotonicMicroseconds()
            let timedOut =
                now >= end || waiter.bell.wait(timeout: .now() + .microseconds(Int(end - now))) == .timedOut
            let lent = state.withLock { state in
                let lent = lend(&state)
                let index = state.waiters.firstIndex { $0.is(waiter) }
                switch lent {
                case .none where timedOut:
                    // Queued where the thread waited (or last, if a check-in woke it just now and
                    // another checkout took the connection).
                    leaving()
                    if let index { state.waiters[index] = .call(call) } else { state.waiters.append(.call(call)) }
                case .none:
                    if index == nil { state.waiters.append(.thread(waiter)) }  // woken, and another was first
                default:
                    if let index { state.waiters.remove(at: index) }
                }
                return lent
            }
            if case .none = lent, !timedOut { continue }
            return lent
        }
    }

    /// Sends the call's statement, waits up to `wait` for the answer, and otherwise has the
    /// poller watch for it (`leaving` first). A broken or unopened session is reopened first on
    /// a dispatch thread: connecting waits (up to PGCONNECT_TIMEOUT while the database is
    /// away), and neither the poller nor an HTTP worker may. A call started at a check-in (on
    /// the poller's thread, or a worker's finishing its own) does not wait: `wait` is 0.
    private func start(_ call: Call, on connection: PGConnection, wait: UInt64 = 0, leaving: () -> Void = {}) {
        guard connection.isUsable else {
            leaving()
            DispatchQueue.global().async { [self] in
                do throws(DatabaseError) {
                    try connection.reconnect()
                    send(call, on: connection)
                } catch {
                    finish(connection, call, .failure(error))
                }
            }
            return
        }
        send(call, on: connection, wait: wait, leaving: leaving)
    }

    private func send(_ call: Call, on connection: PGConnection, wait: UInt64 = 0, leaving: () -> Void = {}) {
        guard let poller else { return }
        do throws(DatabaseError) {
            let flushed = try connection.send(call.name, call.sql, call.parameters)
            if flushed && wait > 0, let outcome = connection.awaitAnswer(within: wait) {
                return finish(connection, call, outcome)
            }
            leaving()
            poller.watch(connection, call, pool: self, flushed: flushed)
        } catch {
            finish(connection, call, .failure(error))
        }
    }

    /// The call's answer is in (or it failed): the connection goes back (closed first after a
    /// connection failure or a demoted server, as in `withConnection`), then `done` runs.
    func finish(_ connection: PGConnection, _ call: Call, _ outcome: Result<[[String?]], DatabaseError>) {
        if case .failure(let error) = outcome, error.isConnectionFailure || error.isWrongServer {
            connection.close()
            discardIdle()
        }
        checkIn(connection)
        call.done(outcome)
    }

    /// Ends the calls that waited for a connection past their deadline (the poller, each loop).
    @discardableResult
    func expire(now: UInt64) -> Int {
        let expired: [Call] = state.withLock { state in
            var expired: [Call] = []
            state.waiters.removeAll { waiting in
                guard case .call(let call) = waiting, call.deadline <= now else { return false }
                expired.append(call)
                return true
            }
            return expired
        }
        for call in expired {
            timeouts.add()
            call.done(.failure(DatabaseError.poolTimeout(seconds: checkoutTimeout)))
        }
        return expired.count
    }

    /// Ends every call still waiting for a connection, never sent, as if its wait had timed out
    /// (503 busy): a stop past its grace answers their requests 503, and a call left queued could
    /// still be sent at the next check-in and commit after its client was told to send it again.
    /// Returns how many it ended.
    @discardableResult
    func abandonQueued() -> Int {
        expire(now: .max)
    }

    /// Lends a connection to `body`, waiting at most `checkoutTimeout` while all are in use.
    /// A connection whose session broke is reopened first; if that fails the error is a
    /// connection failure (08xxx). A connection failure inside `body` closes the connection.
    public func withConnection<R>(_ body: (PGConnection) throws(DatabaseError) -> R) throws(DatabaseError) -> R {
        let connection = try checkOut()
        do {
            if !connection.isUsable { try connection.reconnect() }
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch {
            if error.isConnectionFailure || error.isWrongServer {
                connection.close()
                discardIdle()
            }
            checkIn(connection)
            throw error
        }
    }

    /// What a checkout found: an idle connection, room to open one, or neither.
    private enum Lend {
        case idle(PGConnection)
        case open
        case none
    }

    /// Takes an idle connection or room for a new one, under the lock.
    private func lend(_ state: inout State) -> Lend {
        if let connection = state.idle.popLast() { return .idle(connection) }
        guard state.opened < capacity else { return .none }
        state.opened += 1
        return .open
    }

    private func checkOut() throws(DatabaseError) -> PGConnection {
        let deadline = DispatchTime.now() + checkoutTimeout
        let waiter = Waiter()
        while true {
            var lent = state.withLock { state in
                let lent = lend(&state)
                if case .none = lent, !state.waiters.contains(where: { $0.is(waiter) }) { state.waiters.append(.thread(waiter)) }
                return lent
            }
            if case .none = lent, waiter.bell.wait(timeout: deadline) == .timedOut {
                // A connection checked in at the deadline is still taken, as before the wait ended.
                lent = state.withLock { state in
                    state.waiters.removeAll { $0.is(waiter) }
                    return lend(&state)
                }
                if case .none = lent {
                    timeouts.add()
                    throw DatabaseError.poolTimeout(seconds: checkoutTimeout)
                }
            }
            switch lent {
            case .idle(let connection): return connection
            case .open: return PGConnection(unopened: conninfo, namedStatements: namedStatements)
            case .none: continue  // woken: look again (another checkout may have been first)
            }
        }
    }

    /// Gives the connection to the oldest waiting call (sent on this thread), or back to idle
    /// and wakes the oldest waiting thread.
    private func checkIn(_ connection: PGConnection) {
        let woken: Waiting? = state.withLock { state in
            if case .call = state.waiters.first { return state.waiters.removeFirst() }
            state.idle.append(connection)
            return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
        }
        switch woken {
        case .call(let call): start(call, on: connection)
        case .thread(let waiter): waiter.bell.signal()
        case nil: break
        }
    }

    /// The server stops: every idle session ends (PostgreSQL sees each say goodbye, not drop).
    /// One still lent (a statement that never answered) stays to the process's exit.
    func closeIdle() { discardIdle() }

    /// After a connection failure the database probably restarted: close every idle session,
    /// so each is reopened on its next use instead of failing one request each later.
    private func discardIdle() {
        // No request owns a connection while it sits in `idle`, and closing one is local and fast.
        state.withLock { state in
            for connection in state.idle { connection.close() }
        }
    }
}

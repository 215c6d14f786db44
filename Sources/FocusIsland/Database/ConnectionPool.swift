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
import Dispatch
import Synchronization

public final class ConnectionPool: Sendable {
    private let conninfo: String
    private let capacity: Int
    private let checkoutTimeout: Double
    private let namedStatements: Bool
    private struct State {
        var idle: [PGConnection] = []
        var opened = 0
        /// Requests waiting for a connection right now, oldest first (their number: logs, metrics).
        var waiters: [Waiter] = []
    }
    /// A checkout waiting for a connection: a check-in signals it once.
    private final class Waiter: Sendable {
        let bell = DispatchSemaphore(value: 0)
    }
    private let state = Mutex(State())
    /// Checkouts that waited `checkoutTimeout` in vain (for metrics).
    private let timeouts = Counter()

    /// The pool at one moment, for GET /metrics.
    public struct Usage: Sendable {
        public var capacity: Int
        public var inUse: Int
        public var waiting: Int
        public var checkoutTimeouts: Int
    }

    public func usage() -> Usage {
        let (inUse, waiting) = state.withLock { ($0.opened - $0.idle.count, $0.waiters.count) }
        return Usage(capacity: capacity, inUse: inUse, waiting: waiting, checkoutTimeouts: timeouts.current)
    }

    /// `checkoutTimeout`: seconds a request may wait for a free connection before it fails.
    /// `namedStatements`: false behind a transaction-pooling PgBouncer (DB_PREPARED_STATEMENTS=off).
    public init(conninfo: String, capacity: Int, checkoutTimeout: Double = 5, namedStatements: Bool = true) {
        self.conninfo = conninfo
        self.capacity = capacity
        self.checkoutTimeout = checkoutTimeout
        self.namedStatements = namedStatements
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
                if case .none = lent, !state.waiters.contains(where: { $0 === waiter }) { state.waiters.append(waiter) }
                return lent
            }
            if case .none = lent, waiter.bell.wait(timeout: deadline) == .timedOut {
                // A connection checked in at the deadline is still taken, as before the wait ended.
                lent = state.withLock { state in
                    state.waiters.removeAll { $0 === waiter }
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

    private func checkIn(_ connection: PGConnection) {
        let woken: Waiter? = state.withLock { state in
            state.idle.append(connection)
            return state.waiters.isEmpty ? nil : state.waiters.removeFirst()
        }
        woken?.bell.signal()
    }

    /// After a connection failure the database probably restarted: close every idle session,
    /// so each is reopened on its next use instead of failing one request each later.
    private func discardIdle() {
        // No request owns a connection while it sits in `idle`, and closing one is local and fast.
        state.withLock { state in
            for connection in state.idle { connection.close() }
        }
    }
}

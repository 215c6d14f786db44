// ConnectionPool: a fixed number of libpq connections, lent to one request at a time.
//
// The pool is the server's only shared mutable state; `condition` guards `idle`, `opened` and
// `waiting`. Connections open lazily, so the server starts (and answers /health) while the
// database is down. A checkout never waits longer than `checkoutTimeout` (DB_POOL_TIMEOUT): a
// slow database must not hold every HTTP worker forever, so the request answers 503 instead.
// A connection is lent only if it is usable: one whose server went away (a restart, a crash)
// is reopened before use, and after any connection failure every idle connection is checked
// again before its next use, so no request after recovery meets a stale one.
import Foundation

public final class ConnectionPool: @unchecked Sendable {
    private let conninfo: String
    private let capacity: Int
    private let checkoutTimeout: Double
    private let namedStatements: Bool
    private let condition = NSCondition()
    private var idle: [PGConnection] = []
    private var opened = 0
    /// Requests waiting for a connection right now (for logs and metrics).
    private var waiting = 0
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
        condition.lock()
        defer { condition.unlock() }
        return Usage(capacity: capacity, inUse: opened - idle.count, waiting: waiting, checkoutTimeouts: timeouts.current)
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
            if error.isConnectionFailure {
                connection.close()
                discardIdle()
            }
            checkIn(connection)
            throw error
        }
    }

    private func checkOut() throws(DatabaseError) -> PGConnection {
        let deadline = Date(timeIntervalSinceNow: checkoutTimeout)
        condition.lock()
        waiting += 1
        while idle.isEmpty && opened >= capacity {
            if !condition.wait(until: deadline) && idle.isEmpty && opened >= capacity {
                waiting -= 1
                condition.unlock()
                timeouts.add()
                throw DatabaseError.poolTimeout(seconds: checkoutTimeout)
            }
        }
        waiting -= 1
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        return PGConnection(unopened: conninfo, namedStatements: namedStatements)
    }

    private func checkIn(_ connection: PGConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// After a connection failure the database probably restarted: close every idle session,
    /// so each is reopened on its next use instead of failing one request each later.
    private func discardIdle() {
        condition.lock()
        // No request owns a connection while it sits in `idle`, and closing one is local and fast.
        for connection in idle { connection.close() }
        condition.unlock()
    }
}

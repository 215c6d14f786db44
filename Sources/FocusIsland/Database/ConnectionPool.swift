// ConnectionPool: a fixed number of libpq connections, lent to one request at a time.
//
// The pool is the server's only shared mutable state; `condition` guards `idle` and `opened`.
// Connections open lazily, so the server starts (and answers /health) while the database is
// down; a connection that lost its session is reopened on its next use.
import Foundation

public final class ConnectionPool: @unchecked Sendable {
    private let conninfo: String
    private let capacity: Int
    private let condition = NSCondition()
    private var idle: [PGConnection] = []
    private var opened = 0

    public init(conninfo: String, capacity: Int) {
        self.conninfo = conninfo
        self.capacity = capacity
    }

    /// Lends a connection to `body`, waiting while all are in use. A connection whose session
    /// broke is reopened first; if that fails the error is a connection failure (08xxx).
    public func withConnection<R>(_ body: (PGConnection) throws(DatabaseError) -> R) throws(DatabaseError) -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        if !connection.isHealthy { try connection.reconnect() }
        return try body(connection)
    }

    private func checkOut() throws(DatabaseError) -> PGConnection {
        condition.lock()
        while idle.isEmpty && opened >= capacity { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try PGConnection(conninfo: conninfo)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: PGConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}

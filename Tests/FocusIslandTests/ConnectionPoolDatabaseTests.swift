import Testing

// The pool after a failover, without a formation: a session whose server no longer takes writes
// (here made read-only by hand, as a demoted primary's would be) fails its write with 25006,
// the pool closes it, and the next checkout opens a new session that writes. The failover
// itself is scripts/chaos failover (docs/operations.md).
@testable import FocusIsland

@Suite struct ConnectionPoolDatabaseTests {
    @Test func aWriteRefusedAsReadOnlyDropsTheSessionAndTheNextFindsOneThatWrites() throws {
        let pool = ConnectionPool(conninfo: try TestEnvironment.ownerURL(), capacity: 1, checkoutTimeout: 5)
        let demoted = try pool.withConnection { connection throws(DatabaseError) in
            try connection.execute("set session characteristics as transaction read only")
            return try connection.execute("select pg_backend_pid()::text")[0][0]
        }
        var refused: DatabaseError?
        do {
            _ = try pool.withConnection { connection throws(DatabaseError) in
                try connection.execute("create temp table failover_probe (x integer)")
            }
        } catch {
            refused = error
        }
        #expect(refused?.sqlState == "25006")
        #expect(refused?.isWrongServer == true)
        #expect(refused.map { Problem($0).status } == 503)
        #expect(refused.map { Problem($0).code } == "database_unavailable")
        let after = try pool.withConnection { connection throws(DatabaseError) in
            try connection.execute("create temp table failover_probe (x integer)")
            return try connection.execute("select pg_backend_pid()::text, current_setting('transaction_read_only')")[0]
        }
        #expect(after[0] != demoted)
        #expect(after[1] == "off")
    }
}

// PGConnection: one libpq connection, with the statements it has prepared.
//
// Not thread-safe, on purpose: a connection has exactly one owner at a time (the worker that
// checked it out of the pool, or the migrator), so it needs no lock. `@unchecked Sendable`
// only lets the pool hand it from one owner to the next.
import CLibPQ
import Glibc

public final class PGConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private let conninfo: String
    /// Whether `executePrepared` keeps named statements on the server session. Off behind a
    /// transaction-pooling PgBouncer (1.18 cannot carry named statements from one transaction
    /// to the next, where another client may own the server session).
    private let namedStatements: Bool
    /// Names of statements prepared on the current server session; emptied on reconnect.
    private var prepared: Set<String> = []

    public init(conninfo: String, namedStatements: Bool = true) throws(DatabaseError) {
        self.conninfo = conninfo
        self.namedStatements = namedStatements
        try connect()
    }

    /// A connection that opens on first use (`isUsable` is false until `reconnect()`).
    init(unopened conninfo: String, namedStatements: Bool) {
        self.conninfo = conninfo
        self.namedStatements = namedStatements
    }

    deinit { close() }

    /// Whether a statement can be sent now: the session is open and idle, and nothing arrived
    /// unasked. An idle session never receives data in normal use, so readable bytes mean the
    /// server sent a FATAL error or closed the socket (a restart, a crash, a terminated backend)
    /// even though libpq's own status still says OK until the next read.
    public var isUsable: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_IDLE else {
            return false
        }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Opens a fresh session (after the server restarted or the socket broke).
    public func reconnect() throws(DatabaseError) {
        try connect()
    }

    /// Ends the session; the next use must `reconnect()`.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
    }

    private func connect() throws(DatabaseError) {
        close()
        handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "out of memory"
            throw DatabaseError(sqlState: "08006", message: message.trimmingTrailingNewlines)
        }
    }

    /// Runs one or more statements with no parameters (migrations, seeds, BEGIN/COMMIT).
    @discardableResult
    public func execute(_ sql: String) throws(DatabaseError) -> [[String?]] {
        try rows(of: PQexec(handle, sql))
    }

    /// Runs one statement with text parameters (NULL for nil).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?]) throws(DatabaseError) -> [[String?]] {
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        return try rows(of: result)
    }

    /// Runs a statement prepared once per session under `name`, preparing it on first use; with
    /// named statements off, sends it unnamed with its parameters each time (PQexecParams).
    public func executePrepared(_ name: String, _ sql: String, _ parameters: [String?]) throws(DatabaseError) -> [[String?]] {
        guard namedStatements else { return try execute(sql, parameters) }
        if !prepared.contains(name) {
            _ = try rows(of: PQprepare(handle, name, sql, Int32(parameters.count), nil))
            prepared.insert(name)
        }
        let result = withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
        }
        return try rows(of: result)
    }

    private func rows(of result: OpaquePointer?) throws(DatabaseError) -> [[String?]] {
        defer { PQclear(result) }
        guard let result else { throw connectionError() }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return []
        case PGRES_TUPLES_OK:
            let rowCount = PQntuples(result), columnCount = PQnfields(result)
            var rows: [[String?]] = []
            rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    values.append(
                        PQgetisnull(result, row, column) == 1
                            ? nil : String(cString: PQgetvalue(result, row, column)))
                }
                rows.append(values)
            }
            return rows
        default:
            guard let state = field(result, Self.sqlState) else { throw connectionError() }
            throw DatabaseError(
                sqlState: state,
                message: field(result, Self.primary) ?? "database error",
                detail: field(result, Self.detail),
                hint: field(result, Self.hint))
        }
    }

    // Error field codes from postgres_ext.h (C character macros are not imported into Swift).
    private static let sqlState = Int32(UInt8(ascii: "C")), primary = Int32(UInt8(ascii: "M")),
        detail = Int32(UInt8(ascii: "D")), hint = Int32(UInt8(ascii: "H"))

    private func field(_ result: OpaquePointer, _ code: Int32) -> String? {
        guard let value = PQresultErrorField(result, code) else { return nil }
        return String(cString: value)
    }

    /// libpq reports a broken socket without a SQLSTATE: call it 08006 (connection_failure).
    private func connectionError() -> DatabaseError {
        let message = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "no connection"
        return DatabaseError(sqlState: "08006", message: message.trimmingTrailingNewlines)
    }
}

/// Calls `body` with the parameters as NUL-terminated C strings, freed afterwards.
private func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}

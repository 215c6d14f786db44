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
    /// The answer `receive` has read while libpq still waits for the end of the statement.
    private var outcome: Result<[[String?]], DatabaseError>? = nil
    /// The socket the database poller registered for this session (-1: none yet). Closing the
    /// session forgets it: the kernel drops a closed descriptor from every epoll set, and the
    /// next session may get the same number, to be registered again.
    var registeredSocket: Int32 = -1

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
        outcome = nil
        registeredSocket = -1
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
        blocking()
        return try rows(of: PQexec(handle, sql))
    }

    /// Runs one statement with text parameters (NULL for nil).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?]) throws(DatabaseError) -> [[String?]] {
        blocking()
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try rows(of: result)
    }

    /// Runs a statement prepared once per session under `name`, preparing it on first use; with
    /// named statements off, sends it unnamed with its parameters each time (PQexecParams).
    public func executePrepared(_ name: String, _ sql: String, _ parameters: [String?]) throws(DatabaseError) -> [[String?]] {
        guard namedStatements else { return try execute(sql, parameters) }
        blocking()
        if !prepared.contains(name) {
            _ = try rows(of: PQprepare(handle, name, sql, Int32(parameters.count), nil))
            prepared.insert(name)
        }
        let result = withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        return try rows(of: result)
    }

    // MARK: Asynchronous calls (Database/DatabasePoller.swift)

    /// The session's socket, or -1 while closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Sends one statement without waiting for its answer, as `executePrepared` would run it: a
    /// named statement not yet on this session is prepared first (once per session, waiting for
    /// that one answer). The connection is non-blocking from here on: true when everything went
    /// out, false when `flush` must be called again once the socket is writable.
    func send(_ name: String, _ sql: String, _ parameters: [String?]) throws(DatabaseError) -> Bool {
        guard let handle else { throw connectionError() }
        if namedStatements && !prepared.contains(name) {
            // Waits for its answer: once per statement and session.
            blocking()
            _ = try rows(of: PQprepare(handle, name, sql, Int32(parameters.count), nil))
            prepared.insert(name)
        }
        if PQisnonblocking(handle) == 0 && PQsetnonblocking(handle, 1) != 0 { throw connectionError() }
        let sent: Int32
        if namedStatements {
            sent = withCStrings(parameters) { values in
                PQsendQueryPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
            }
        } else {
            sent = withCStrings(parameters) { values in
                PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
        }
        guard sent == 1 else { throw connectionError() }
        return try flush()
    }

    /// Sends what libpq still holds: true when all is out.
    func flush() throws(DatabaseError) -> Bool {
        switch PQflush(handle) {
        case 0: return true
        case 1: return false
        default: throw connectionError()
        }
    }

    /// Reads what arrived on the socket; nil while the answer is incomplete, else the rows (or
    /// the error) of the statement `send` sent, once libpq has nothing more for it.
    func receive() -> Result<[[String?]], DatabaseError>? {
        guard let handle, PQconsumeInput(handle) == 1 else { return .failure(connectionError()) }
        while PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else {
                defer { outcome = nil }
                return outcome ?? .failure(DatabaseError(sqlState: "XX000", message: "the statement returned no result"))
            }
            // The first result is the statement's; the session is idle again after the next nil.
            let rows = Result { () throws(DatabaseError) -> [[String?]] in try self.rows(of: result) }
            if outcome == nil { outcome = rows }
        }
        return nil
    }

    /// Waits up to `microseconds` for the answer of the statement `send` sent, on the calling
    /// thread: the answer (as `receive` gives it), or nil when it is not complete by then (what
    /// arrived so far stays read, and the rest wakes the poller like a whole answer would).
    func awaitAnswer(within microseconds: UInt64) -> Result<[[String?]], DatabaseError>? {
        let deadline = monotonicMicroseconds() + microseconds
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let now = monotonicMicroseconds()
            guard now < deadline else { return nil }
            descriptor.revents = 0
            // poll's whole milliseconds, rounded up: the wait ends at most 1 ms late.
            let ready = poll(&descriptor, 1, Int32((deadline - now + 999) / 1_000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return ready == 0 ? nil : .failure(connectionError()) }
            if let outcome = receive() { return outcome }
        }
    }

    /// The blocking calls wait for their answers in libpq's blocking mode, also on a session an
    /// asynchronous call used before.
    private func blocking() {
        if let handle, PQisnonblocking(handle) == 1 { PQsetnonblocking(handle, 0) }
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
            // Only api.fail's errors name a user there; PostgreSQL's own name a real column.
            let user = state.hasPrefix("PT") ? field(result, Self.column).flatMap { $0.isEmpty ? nil : $0 } : nil
            throw DatabaseError(
                sqlState: state,
                message: field(result, Self.primary) ?? "database error",
                detail: field(result, Self.detail),
                hint: field(result, Self.hint),
                user: user)
        }
    }

    // Error field codes from postgres_ext.h (C character macros are not imported into Swift).
    private static let sqlState = Int32(UInt8(ascii: "C")), primary = Int32(UInt8(ascii: "M")),
        detail = Int32(UInt8(ascii: "D")), hint = Int32(UInt8(ascii: "H")), column = Int32(UInt8(ascii: "c"))

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

/// Calls `body` with the parameters as NUL-terminated C strings (nil: NULL), for the one libpq
/// call that copies them into its output buffer. All of them are written into one buffer and
/// their pointers into another, both on the stack when small (withUnsafeTemporaryAllocation):
/// the strdup per parameter and the two arrays this replaced cost five allocations and frees a
/// statement on every request.
private func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    var size = 0
    for string in strings { size += (string?.utf8.count ?? 0) + 1 }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(size, 1)) { bytes in
        withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(strings.count, 1)) { pointers in
            var offset = 0
            for (index, string) in strings.enumerated() {
                guard let string else {
                    pointers[index] = nil
                    continue
                }
                let start = offset
                offset += string.withBytes { UnsafeMutableBufferPointer(rebasing: bytes[offset...]).initialize(from: $0).index }
                bytes[offset] = 0
                offset += 1
                pointers[index] = UnsafeRawPointer(bytes.baseAddress.map { $0 + start }).map {
                    $0.assumingMemoryBound(to: CChar.self)
                }
            }
            return body(UnsafePointer(pointers.baseAddress))
        }
    }
}

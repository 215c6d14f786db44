// DatabaseError: what PostgreSQL (or libpq) said when a statement failed.
// Fields come from the server's error report: SQLSTATE, message, detail and hint, and for the
// errors api.fail raises (PTnnn) the signed-in user it names in the report's column field.

public struct DatabaseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Five-character SQLSTATE; "08006" when libpq lost or could not open the connection.
    public let sqlState: String
    public let message: String
    public let detail: String?
    public let hint: String?
    /// The user the request was signed in as when SQL raised it (api.fail's COLUMN), for the
    /// request's log line; nil before a token was accepted, and for any error but PTnnn.
    public let user: String?

    public init(sqlState: String, message: String, detail: String? = nil, hint: String? = nil, user: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.user = user
    }

    /// The connection is gone or the server is shutting down: reconnect before the next use.
    public var isConnectionFailure: Bool {
        sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    /// read_only_sql_transaction: a write met a server that no longer takes writes, a primary
    /// demoted to a standby under a session that outlived the change. Reconnecting through the
    /// formation's URL (target_session_attrs=read-write) finds the one that does.
    public var isWrongServer: Bool { sqlState == "25006" }

    /// The server's own failure, not PostgreSQL's: no pooled connection was free within
    /// DB_POOL_TIMEOUT. Class FI is one PostgreSQL does not use.
    public static let poolTimeoutState = "FI001"

    public static func poolTimeout(seconds: Double) -> DatabaseError {
        DatabaseError(sqlState: poolTimeoutState, message: "no database connection was free within \(seconds) s")
    }

    public var description: String {
        var text = "\(sqlState): \(message)"
        if let detail { text += " (detail: \(detail))" }
        return text
    }
}

// ErrorMapping: the one SQLSTATE → HTTP table. Exact codes first, then classes.
// Bodies never carry the database's own message except for PTnnn errors, whose MESSAGE was
// written for people on purpose; everything else goes to the log only.

extension Problem {
    public init(_ error: DatabaseError) {
        let state = error.sqlState
        // PTnnn: raised by our SQL functions; nnn is the status, DETAIL the code, HINT extra members.
        if state.hasPrefix("PT"), let status = Int(state.dropFirst(2)), (400...599).contains(status) {
            self.init(status, error.detail ?? "error", error.message, extensions: error.hint)
            user = error.user
            return
        }
        switch state {
        case "23505":  // unique_violation
            self.init(409, "conflict", "That already exists.")
        case "23503":  // foreign_key_violation: a referenced row is missing or still referenced
            self.init(409, "conflict", "That refers to something that does not exist or is still in use.")
        case "23P01":  // exclusion_violation
            self.init(409, "conflict", "That overlaps with something that already exists.")
        case "23514", "23502":  // check_violation, not_null_violation
            self.init(422, "constraint_violation", "That value is not allowed.")
        case "40001", "40P01":  // serialization_failure, deadlock_detected (after our retries)
            self.init(503, "busy", "The database is busy; try again.")
        case DatabaseError.poolTimeoutState:  // the server's pool: no connection free in time
            self.init(503, "busy", "The server is busy; try again.")
        case "57014":  // query_canceled (statement_timeout)
            self.init(503, "timeout", "The request took too long; try again.")
        case "57P01", "57P02", "57P03":  // admin_shutdown, crash_shutdown, cannot_connect_now
            self.init(503, "database_unavailable", "The database is unavailable; try again shortly.")
        case "25006":  // read_only_sql_transaction: a write on a demoted primary (a failover)
            self.init(503, "database_unavailable", "The database is unavailable; try again shortly.")
        default:
            if state.hasPrefix("08") {  // connection_exception class
                self.init(503, "database_unavailable", "The database is unavailable; try again shortly.")
            } else if state.hasPrefix("53") {  // insufficient_resources class
                self.init(503, "busy", "The database is busy; try again.")
            } else if state.hasPrefix("22") {  // data_exception class
                self.init(400, "invalid_input", "A value in the request is not valid.")
            } else {
                self.init(500, "internal_error", "Something went wrong on our side.")
            }
        }
    }
}

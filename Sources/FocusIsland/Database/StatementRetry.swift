// StatementRetry: when a statement that failed is sent again, one policy for the blocking and
// the asynchronous call alike (HTTP/StatementCall.swift): which failures, how many tries in
// all, and the pause before each retry.
// Retried: a serialization failure or a deadlock (40001, 40P01), which rolled the statement
// back: nothing was done, and the rival transaction has finished (it committed, or the deadlock
// chose this one), so the next try goes at once. Never retried: a lost connection (08xxx, 57P0x)
// or a demoted server (25006), after which the statement may have committed; the pool reopens
// the session on its next use and the client is told 503 with Retry-After
// (HTTP/ErrorMapping.swift), to send again (with its Idempotency-Key).

struct StatementRetry: Sendable, Equatable {
    /// The SQLSTATEs after which the statement is sent again.
    let states: Set<String>
    /// Tries in all, the first included.
    let attempts: Int
    /// Microseconds to wait before the second try; each later one waits twice the one before.
    let backoff: UInt64

    /// The request path's policy.
    static let statements = StatementRetry(states: ["40001", "40P01"], attempts: 3, backoff: 0)

    /// Whether try number `attempt`, which failed with `error`, is followed by another.
    func retries(_ error: DatabaseError, after attempt: Int) -> Bool {
        states.contains(error.sqlState) && attempt < attempts
    }

    /// Microseconds to wait before try number `attempt` (2 or later).
    func pause(before attempt: Int) -> UInt64 {
        guard backoff > 0, attempt > 1 else { return 0 }
        return backoff << UInt64(min(attempt - 2, 16))
    }
}

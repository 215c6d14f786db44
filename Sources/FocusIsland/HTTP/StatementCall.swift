// StatementCall: a route's one statement on its pool, one round trip per try: blocking (`run`,
// the worker waits) or not (`submit`, DB_ASYNC=on: the answer comes on the poller's thread).
// Both go through `outcome`, the one place that reads the reply row, asks the retry policy
// (Database/StatementRetry.swift) and maps a failure to its problem (ErrorMapping.swift),
// logging the server's own (5xx).
import Dispatch
import Glibc

struct StatementCall: Sendable {
    let route: Route
    let parameters: [String?]
    let pool: ConnectionPool
    /// The request has an Idempotency-Key: the route's keyed statement runs (Route.swift).
    let keyed: Bool
    let retry: StatementRetry
    let logger: Logger

    /// What a try came to: the reply or the problem to answer, or another try.
    private enum Outcome {
        case done(Result<Reply, Problem>)
        case again(attempt: Int)
    }

    /// Waits on this thread for the reply, through every try.
    func run() throws(Problem) -> Reply {
        let (name, text) = try statement()
        var attempt = 1
        while true {
            let rows = Result { () throws(DatabaseError) -> [[String?]] in
                try pool.withConnection { connection throws(DatabaseError) in
                    try connection.executePrepared(name, text, parameters)
                }
            }
            switch outcome(rows, attempt: attempt) {
            case .done(let result): return try result.get()
            case .again(let next):
                let pause = retry.pause(before: next)
                if pause > 0 { usleep(UInt32(min(pause, UInt64(UInt32.max)))) }
                attempt = next
            }
        }
    }

    /// `run` without a waiting thread: the reply (or the problem) goes to `done` on the database
    /// poller's thread, or on this one when it came within the pool's answer wait. `leaving` runs
    /// on this thread before the call leaves it (the request's last moment to suspend).
    func submit(
        attempt: Int = 1, leaving: @escaping @Sendable () -> Void, done: @escaping @Sendable (Result<Reply, Problem>) -> Void
    ) {
        let name: String, text: String
        do throws(Problem) { (name, text) = try statement() } catch { return done(.failure(error)) }
        pool.submit(name, text, parameters, leaving: leaving) { rows in
            switch outcome(rows, attempt: attempt) {
            case .done(let result): done(result)
            case .again(let next):
                let pause = retry.pause(before: next)
                guard pause > 0 else { return submit(attempt: next, leaving: leaving, done: done) }
                leaving()
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(min(pause, 60_000_000)))) {
                    submit(attempt: next, leaving: leaving, done: done)
                }
            }
        }
    }

    /// The route's statement and its prepared name, keyed or not.
    private func statement() throws(Problem) -> (name: String, text: String) {
        guard case .sql = route.action, let statement = route.statement(keyed: keyed) else {
            throw Problem(500, "internal_error", "Something went wrong on our side.")
        }
        return statement
    }

    /// One try's rows or error: the reply, another try, or the problem.
    private func outcome(_ rows: Result<[[String?]], DatabaseError>, attempt: Int) -> Outcome {
        let error: DatabaseError
        switch rows {
        case .success(let rows):
            if let row = rows.first, let reply = Reply(row: row, kind: route.response) { return .done(.success(reply)) }
            let function = if case .sql(let function) = route.action { function } else { route.template }
            error = DatabaseError(sqlState: "XX000", message: "\(function) returned no reply row")
        case .failure(let failure):
            if retry.retries(failure, after: attempt) { return .again(attempt: attempt + 1) }
            error = failure
        }
        let problem = Problem(error)
        if problem.status >= 500 { logger.error("\(route.template): \(error)") }
        return .done(.failure(problem))
    }
}

extension Pipeline {
    /// One statement of `route`, waited for on this thread (the release controls, the pages).
    func call(_ route: Route, _ parameters: [String?], pool: ConnectionPool, keyed: Bool = false) throws(Problem) -> Reply {
        try StatementCall(route: route, parameters: parameters, pool: pool, keyed: keyed, retry: retry, logger: logger).run()
    }
}

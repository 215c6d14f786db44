// JobRunner: the scheduled jobs of app.scheduled_jobs (room settlement, gift expiry, the shop's
// windows, the prune), on a thread and a connection of their own (LISTEN_DATABASE_URL: straight
// to PostgreSQL, beside the listener's), so a job that runs for its whole budget never holds up
// the listener's rings. Once a minute (the first time as it starts) it asks which jobs are due
// (api.jobs_due) and runs each on its own (sql/api/140_jobs.sql, docs/operations.md
// "Scheduled jobs"):
//   - claims it (api.job_claim, autocommitted: its next run moves `every` later, so one server
//     runs it however many ask, and a run that fails is tried again at its next run);
//   - runs its steps (api.job_step), each in a transaction of its own with statement_timeout set
//     to what is left of the job's budget, while a step says there is more and at least a fifth
//     of the budget is left (the prune deletes in batches, resumed at its next run);
//   - records how the run ended (api.job_finished), in a transaction of its own after the steps:
//     a step cancelled by the budget, or failing, rolled back only itself, so its error is
//     written here, and the next job runs anyway.
import Foundation
import Glibc
import Synchronization

public final class JobRunner: Sendable {
    /// Microseconds between asking which jobs are due (a minute): the shortest `every` a job may have.
    static let every: UInt64 = 60_000_000
    /// No further step starts once less than this share of a job's budget is left.
    static let reserve = 5

    /// How one run of a job ended.
    public struct Outcome: Sendable, Equatable {
        public let job: String
        /// The steps' results added up (what the committed steps did, when it failed).
        public let result: Int
        /// Why it failed (nil: it succeeded); a budget's cancel says so and how long it was.
        public let error: String?
        /// Its budget ran low with work left: it succeeded and runs again in a minute.
        public let unfinished: Bool
    }

    /// Whether a run whose last step said there is more starts another: at least a fifth of its
    /// budget (`left` and `budget` in the same unit) is left. Below that it stops with the work
    /// resumed a minute later, rather than start a step its budget would likely cancel.
    static func startsAnotherStep(left: UInt64, budget: UInt64) -> Bool {
        left * UInt64(reserve) >= budget
    }

    private let conninfo: String
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)

    public init(conninfo: String, logger: Logger) {
        self.conninfo = conninfo
        self.logger = logger
    }

    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "jobs"
        thread.start()
    }

    /// Stops after the step running now (a run cut short is recorded by nobody: the job runs
    /// at its next run).
    public func stop() {
        stopping.store(true, ordering: .releasing)
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func loop() {
        var connection: PGConnection?
        var backoff: UInt32 = 100_000
        var ran: UInt64 = 0
        while !isStopping {
            let now = monotonicMicroseconds()
            if ran != 0 && now - ran < Self.every {
                usleep(UInt32(min(Self.every - (now - ran), 100_000)))
                continue
            }
            do throws(DatabaseError) {
                let open: PGConnection
                if let connection {
                    open = connection
                } else {
                    open = try PGConnection(conninfo: conninfo, namedStatements: false)
                    connection = open
                }
                backoff = 100_000
                ran = now
                _ = try runDue(on: open)
                if !open.isUsable {
                    open.close()
                    connection = nil
                }
            } catch {
                logger.error("jobs: \(error.message)")
                connection?.close()
                connection = nil
                usleep(backoff)
                backoff = min(backoff * 2, 1_000_000)
            }
        }
        connection?.close()
    }

    /// Runs every job due now, each on its own, on `connection` (idle, autocommit); what each
    /// run this server claimed did, in order. Throws when the connection fails outside a run.
    public func runDue(on connection: PGConnection) throws(DatabaseError) -> [Outcome] {
        let due = try connection.execute("select job from api.jobs_due()")
        var outcomes: [Outcome] = []
        for row in due {
            guard !isStopping, let job = row.first ?? nil else { continue }
            do throws(DatabaseError) {
                if let outcome = try run(job, on: connection) { outcomes.append(outcome) }
            } catch {
                // A claim or a record that failed (a lock past focus_api's statement_timeout):
                // the job waits for its next run, the others still run; a lost connection ends the pass.
                if error.sqlState.hasPrefix("08") || !connection.isUsable { throw error }
                logger.error("jobs: \(job): \(error.message)")
            }
        }
        return outcomes
    }

    /// One run of `job`, or nil when it was not due any more (another server claimed it).
    private func run(_ job: String, on connection: PGConnection) throws(DatabaseError) -> Outcome? {
        guard let claimed = try connection.execute("select api.job_claim($1)", [job]).first?.first ?? nil,
            let budget = UInt64(claimed)
        else { return nil }
        let started = monotonicMicroseconds()
        var total = 0
        var error: String?
        var unfinished = false
        var steps = 0
        while error == nil {
            // Microseconds left of the budget.
            let left = budget * 1000 - min(monotonicMicroseconds() - started, budget * 1000)
            if steps > 0 && (!Self.startsAnotherStep(left: left, budget: budget * 1000) || isStopping) {
                unfinished = true
                break
            }
            steps += 1
            do throws(DatabaseError) {
                try connection.execute("begin")
                try connection.execute("select set_config('statement_timeout', $1, true)", [String(max(left / 1000, 1))])
                let step = try connection.execute("select result, more from api.job_step($1)", [job])
                try connection.execute("commit")
                total += step.first?[0].flatMap { Int($0) } ?? 0
                if step.first?[1] != "t" { break }
            } catch let failure {
                _ = try? connection.execute("rollback")
                error =
                    failure.sqlState == "57014" && failure.message.contains("statement timeout")
                    ? "past its budget of \(budget) ms: \(failure.message)" : "\(failure.sqlState): \(failure.message)"
                if failure.sqlState.hasPrefix("08") { throw failure }
            }
        }
        let failures =
            try connection.execute(
                "select api.job_finished($1, $2, $3, $4)", [job, String(total), error, unfinished ? "true" : "false"]
            ).first?.first ?? nil
        if let error {
            logger.error("jobs: \(job) failed (\(failures ?? "?") in a row): \(error)")
        } else if unfinished {
            logger.info("jobs: \(job) stopped near its budget of \(budget) ms with work left; again in a minute")
        }
        return Outcome(job: job, result: total, error: error, unfinished: unfinished)
    }
}

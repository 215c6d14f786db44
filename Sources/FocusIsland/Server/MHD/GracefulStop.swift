// GracefulStop: the public port's part of a stop (docs/operations.md, "Stopping and rolling
// deploys"), so that a rolling deploy loses no request, answer or event:
//   1. draining (Server/Drain.swift): /ready answers 503 and every answer closes its connection,
//      while the listener still accepts for DRAIN_DELAY, the time a balancer's health check
//      takes to notice (it may send requests until then: they are served, not refused);
//   2. the listener closes (the kernel refuses new connections, which a balancer retries on
//      another server), kept-alive connections idle after an answer are closed, event streams
//      end with a retry hint and waiting long-polls answer;
//   3. requests in flight finish, on workers and suspended for the database, for at most
//      STOP_GRACE; the stop also waits for a connection whose first request is on its way and
//      for the streams' last frames;
//   4. requests starting now are refused (503 at once), and any still suspended for the
//      database is resumed with 503;
//   5. libmicrohttpd stops, and only once no request is in flight: with a connection suspended
//      it aborts the process (exit 134, the crash this order exists for), and it would join a
//      worker still inside a request for as long as that request waits.
import Glibc

extension HTTPServer {
    /// How much longer than STOP_GRACE requests resumed with 503 (and refusals) have to be sent.
    static let settleMicroseconds: UInt64 = 1_000_000

    /// The graceful stop above: `delay` is DRAIN_DELAY, `grace` STOP_GRACE (seconds). Only the
    /// first call stops; it returns what it waited for.
    @discardableResult
    public func stop(delay: Double = 0, grace: Double = 10) -> DrainReport {
        var report = DrainReport()
        guard drain.begin() else { return report }
        let started = monotonicMicroseconds()
        wait(until: started + Self.microseconds(delay)) { false }

        // The PROXY listener first: it hands sockets to the daemon, whose listener closes next.
        proxy?.stop()
        daemon.closeListener()
        report.idle = headDeadline.closeIdle()
        report.inFlight = inFlight.load(ordering: .sequentiallyConsistent)
        (report.streams, report.polls) = streams?.closeAll() ?? (0, 0)
        pipeline.logger.info(
            "stop: listener closed; up to \(grace) s for \(report.inFlight) request(s) in flight; "
                + "\(report.streams) stream(s) and \(report.polls) long-poll(s) told to reconnect")
        let graceEnds = monotonicMicroseconds() + Self.microseconds(grace)
        wait(until: graceEnds) {
            // An answer sent before the drain began (without Connection: close) may complete
            // only now: its connection becomes idle, and is closed too.
            report.idle += headDeadline.closeIdle()
            return inFlight.load(ordering: .sequentiallyConsistent) == 0 && headDeadline.watching == 0 && (writers?.open ?? 0) == 0
        }

        drain.refuse()
        // A request whose handler was running at the refusal may suspend after this first
        // pass: each later look resumes it too.
        // Statements still queued for a connection are ended unsent first, so that none of the
        // requests answered 503 here runs after its answer (ConnectionPool.abandonQueued).
        let settleEnds = monotonicMicroseconds() + Self.settleMicroseconds
        abandonQueuedStatements()
        report.cutOff = suspended.resumeAll(with: Self.cutOffAnswer)
        wait(until: settleEnds) {
            abandonQueuedStatements()
            report.cutOff += suspended.resumeAll(with: Self.cutOffAnswer)
            return inFlight.load(ordering: .sequentiallyConsistent) == 0
        }
        if (writers?.open ?? 0) > 0 { writers?.endAll() }

        report.stuck = inFlight.load(ordering: .sequentiallyConsistent)
        if report.stuck == 0 {
            daemon.stop()
        } else {
            // Stopping now could abort (a request on a worker may yet suspend) or hang (joining
            // a worker that waits for the database): the process's exit ends them instead.
            pipeline.logger.error("stop: \(report.stuck) request(s) still in flight; libmicrohttpd left to the exit")
        }
        headDeadline.stop()
        report.milliseconds = Int((monotonicMicroseconds() - started) / 1000)
        return report
    }

    /// Past the grace: the statements waiting for a free connection in either pool, never sent.
    private func abandonQueuedStatements() {
        pipeline.pool.abandonQueued()
        pipeline.readPool?.abandonQueued()
    }

    /// Looks every 10 ms until `done` or `deadline` (monotonic µs); whether `done` held.
    @discardableResult
    private func wait(until deadline: UInt64, _ done: () -> Bool) -> Bool {
        while !done() {
            if monotonicMicroseconds() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }

    private static func microseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1_000_000) }

    /// A request that starts when libmicrohttpd is about to stop: not begun, so sent again safely.
    static func stoppingAnswer() -> Response {
        var response = Problem(503, "shutting_down", "The server is stopping; send the request again.").response
        response.setHeader("Retry-After", "1")
        return response
    }

    /// A request still waiting for the database when STOP_GRACE ended. Its statement may still
    /// commit: sent again with the same Idempotency-Key, it replays what it did.
    @Sendable static func cutOffAnswer() -> Response {
        var response = Problem(
            503, "shutting_down",
            "The server stopped before the database answered; send the request again with the same Idempotency-Key."
        ).response
        response.setHeader("Retry-After", "1")
        return response
    }
}

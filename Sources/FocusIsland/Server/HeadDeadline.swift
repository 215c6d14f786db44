// HeadDeadline: a deadline for each request head, and a fast refusal when the server is full.
//
// libmicrohttpd 0.9.75/76 bounds only the time between two bytes (CONNECTION_TIMEOUT), so a
// client sending one byte every few seconds (slowloris) holds its connection forever, and
// enough of them fill every slot. This watch bounds the time to a complete head instead:
//   * a connection must deliver its first complete request head within HEAD_TIMEOUT of being
//     accepted, and each later head on a kept-alive connection within IDLE_TIMEOUT of the
//     previous answer, whatever the trickle rate;
//   * a sweeper thread (4 times a second) writes a 408 problem+json to each connection past
//     its deadline and shuts the socket down; libmicrohttpd then sees end-of-file and closes
//     the connection itself, through its normal path (so its counters and memory stay right).
//
// Why this way: libmicrohttpd tells us exactly when a socket is accepted and closed
// (NOTIFY_CONNECTION) and when a head is complete (the first access-handler call), but offers
// no per-connection timer. Closing a socket behind its back would break it (it would close
// the number again, maybe someone else's), whereas shutdown() leaves the descriptor to its
// owner and only makes the next read return 0. The descriptor cannot be reused while it is in
// its shard: libmicrohttpd notifies CLOSED before it closes the socket, and `closed` removes it
// under the same lock the sweeper holds while it shuts sockets down. The 408 is written
// directly because libmicrohttpd has written nothing on a connection whose head is incomplete.
//
// The same notifications count open connections, so the accept policy can refuse a new one
// at once when CONNECTION_LIMIT are open (the client sees the connection closed within
// milliseconds), instead of libmicrohttpd leaving it unanswered in the listen backlog, which
// is what its own limit does (it stops polling the listening socket).
//
// A stop closes the kept-alive connections that sit idle after an answer (`closeIdle`, the same
// shutdown() and for the same reasons), so that a balancer sends them no further request.
import CLinux
import Foundation
import Glibc
import Synchronization

final class HeadDeadline: Sendable {
    /// An open connection: the monotonic time (µs) by which a head must be complete, or nil
    /// while none is awaited (a request is being read, answered, or suspended); and whether it
    /// was answered before (a kept-alive connection: idle while its next head is awaited).
    private struct Watch: Sendable {
        var deadline: UInt64?
        var answered = false
    }
    /// Open connections by socket. Every request changes its entry twice (its head, its answer)
    /// on whichever HTTP thread serves it, so the table is sharded (Support/ShardedTable.swift):
    /// behind one Mutex it was a convoy that took 43% of the server's CPU samples and held
    /// the health check to 8,000-23,000 req/s in every other run, against 40,000-50,000 (perf, 2026-12-07).
    private let watched = ShardedTable<Int32, Watch>()
    private let headTimeout: UInt64
    private let idleTimeout: UInt64
    /// Open connections right now (for the accept policy).
    let open = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let logger: Logger

    init(headTimeoutSeconds: Int, idleTimeoutSeconds: Int, logger: Logger) {
        headTimeout = UInt64(headTimeoutSeconds) * 1_000_000
        idleTimeout = UInt64(idleTimeoutSeconds) * 1_000_000
        self.logger = logger
    }

    /// A socket was accepted: its first head is due within HEAD_TIMEOUT.
    func opened(_ socket: Int32) {
        open.add(1, ordering: .relaxed)
        let deadline = monotonicMicroseconds() + headTimeout
        watched.set(socket, Watch(deadline: deadline))
    }

    /// libmicrohttpd is about to close the socket.
    func closed(_ socket: Int32) {
        open.subtract(1, ordering: .relaxed)
        watched.set(socket, nil)
    }

    /// A complete head arrived (the first access-handler call of a request).
    func headArrived(_ socket: Int32) {
        watched.withShard(of: socket) { table in table[socket]?.deadline = nil }
    }

    /// A stream's socket went to a writer (MHD/EventsEndpoint.swift): no head is due on it and a
    /// stop does not close it as idle (the writer ends it with its retry hint). libmicrohttpd
    /// lets go of the connection but may notice only at its next event on it, up to
    /// IDLE_TIMEOUT later: it stays counted `open` until then.
    func handedOff(_ socket: Int32) {
        watched.set(socket, nil)
    }

    /// Connections libmicrohttpd serves, streams handed off excepted (a stop waits for them).
    var watching: Int { watched.count }

    /// An answer was sent; on a kept-alive connection the next head is due within IDLE_TIMEOUT.
    func answered(_ socket: Int32) {
        let deadline = monotonicMicroseconds() + idleTimeout
        watched.withShard(of: socket) { table in
            table[socket]?.deadline = deadline
            table[socket]?.answered = true
        }
    }

    func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                usleep(250_000)
                let closed = sweep()
                if closed > 0 { logger.info("head deadline: closed \(closed) connection(s) whose request head was late (408)") }
            }
        }
        thread.name = "head-deadline"
        thread.start()
    }

    func stop() { running.store(false, ordering: .releasing) }

    /// Shuts down every connection whose head is overdue; returns how many.
    func sweep() -> Int {
        let now = monotonicMicroseconds()
        var closed = 0
        watched.forEachShard { table in
            for (socket, watch) in table {
                guard let deadline = watch.deadline, deadline <= now else { continue }
                Self.requestTimeout.withUnsafeBytes { bytes in
                    _ = send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                shutdown(socket, Int32(SHUT_RDWR))
                table[socket]?.deadline = nil
                closed += 1
            }
        }
        return closed
    }

    /// Shuts down every kept-alive connection waiting for its next request (a stop: no further
    /// request may start on it); returns how many. One whose next head was on its way is closed
    /// before any byte of an answer, which a balancer may retry on another server (haproxy's
    /// `retry-on empty-response`): docs/operations.md. A connection not yet answered keeps its
    /// first head's deadline: that request is on its way.
    func closeIdle() -> Int {
        var closed = 0
        watched.forEachShard { table in
            for (socket, watch) in table where watch.answered && watch.deadline != nil {
                shutdown(socket, Int32(SHUT_RDWR))
                table[socket]?.deadline = nil
                closed += 1
            }
        }
        return closed
    }

    /// The whole answer to a late head: 408 problem+json, then the connection closes.
    static let requestTimeout: [UInt8] = {
        let body = Problem(408, "request_timeout", "The request head did not arrive in time.").json
        return Array(
            ("HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\n"
                + Response.everyAnswer.map { "\($0.name): \($0.value)\r\n" }.joined() + "Cache-Control: no-store\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
    }()
}

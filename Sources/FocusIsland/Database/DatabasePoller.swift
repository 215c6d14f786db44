// DatabasePoller: one thread that waits for the answers of statements sent without waiting.
//
// A request's statement is sent by the thread that has it (an HTTP worker, or the thread that
// checks a connection in and hands it to the next call waiting); an answer that does not come
// within the sender's answer wait (DB_ANSWER_WAIT, 5 ms; none for a call sent at a check-in) is
// watched for here, its request suspended, in one epoll set for every pool. The answer goes to
// the call's completion on this thread, and the connection back to its pool. So no HTTP worker
// sleeps in poll() for the database longer than the answer wait, and a worker's other keep-alive
// connections are served while a slower statement runs. Once a tick (50 ms) it also ends the calls
// that waited longer than their pool's checkout deadline for a connection (ConnectionPool.expire).
// The thread starts with the first call and ends with `stop`.
import CLinux
import Foundation
import Synchronization

final class DatabasePoller: Sendable {
    /// A call whose statement is out: its connection, the pool to give it back to, and what
    /// to do with the answer.
    private struct Watched: Sendable {
        let connection: PGConnection
        let call: ConnectionPool.Call
        let pool: ConnectionPool
    }

    private let epoll: Int32
    private let bell: Int32
    /// Calls by their session's socket (registered in `epoll` while here): every statement a
    /// worker leaves to the poller passes here, from each HTTP thread, so it is sharded
    /// (Support/ShardedTable.swift).
    private let watched = ShardedTable<Int32, Watched>()
    /// The pools whose waiting calls each loop checks against their deadline.
    private let pools = Mutex<[WeakPool]>([])
    private let running = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// How long one wait lasts at most (ms): the precision of the checkout deadline.
    static let tick: Int32 = 50

    private struct WeakPool: @unchecked Sendable {
        weak var pool: ConnectionPool?
    }

    init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        bell = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: bell))
        epoll_ctl(epoll, EPOLL_CTL_ADD, bell, &event)
    }

    deinit {
        close(epoll)
        close(bell)
    }

    /// Checks `pool`'s waiting calls against its deadline on every loop.
    func register(_ pool: ConnectionPool) {
        pools.withLock { $0.append(WeakPool(pool: pool)) }
    }

    /// Watches `connection` until the answer of the statement just sent is in (`flushed`: all of
    /// it went out; else the socket is also watched for room to send the rest).
    ///
    /// A session's socket joins the epoll set once, when it is first watched after it opened,
    /// and stays there: each statement only arms it again (EPOLL_CTL_MOD). It is registered
    /// one-shot and level-triggered: an answer that came before the arming is reported at once,
    /// and after one report the socket says nothing until the next arming, so an idle session
    /// whose server closed it (a restart, a terminated backend) cannot wake the poller in a loop;
    /// the pool's check before the next use finds it.
    func watch(_ connection: PGConnection, _ call: ConnectionPool.Call, pool: ConnectionPool, flushed: Bool) {
        startIfNeeded()
        let socket = connection.socket
        watched.set(socket, Watched(connection: connection, call: call, pool: pool))
        if let code = arm(connection, socket, flushed: flushed) {
            watched.set(socket, nil)
            pool.finish(
                connection, call,
                .failure(DatabaseError(sqlState: "08006", message: "epoll_ctl: \(String(cString: strerror(code)))")))
        }
    }

    /// Arms the socket for one report (adding it to the set if this session's socket is not in
    /// it yet); the errno on failure.
    private func arm(_ connection: PGConnection, _ socket: Int32, flushed: Bool) -> Int32? {
        var event = epoll_event(events: Self.mask(flushed: flushed), data: epoll_data_t(fd: socket))
        if connection.registeredSocket == socket {
            return epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0 ? nil : errno
        }
        // EEXIST: the number is still in the set (a descriptor closed while a duplicate of it
        // lived on): arming it is enough.
        guard
            epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0
                || (errno == EEXIST && epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0)
        else { return errno }
        connection.registeredSocket = socket
        return nil
    }

    private static func mask(flushed: Bool) -> UInt32 {
        EPOLLIN.rawValue | EPOLLONESHOT.rawValue | (flushed ? 0 : EPOLLOUT.rawValue)
    }

    /// Ends the thread (calls in flight are answered first only if their answers are in).
    func stop() {
        stopping.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(bell, &one, 8)
    }

    /// Starts the thread unless it runs (also for a call queued behind blocking checkouts, so
    /// that its deadline is kept).
    func startIfNeeded() {
        guard !running.load(ordering: .acquiring), !running.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        let thread = Thread { [self] in loop() }
        thread.name = "database-poller"
        thread.start()
    }

    private func loop() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var expired = monotonicMicroseconds()
        while !stopping.load(ordering: .acquiring) {
            let count = epoll_wait(epoll, &events, Int32(events.count), Self.tick)
            for event in events.prefix(Int(max(count, 0))) {
                let socket = event.data.fd
                if socket == bell {
                    var value: UInt64 = 0
                    _ = read(bell, &value, 8)
                    continue
                }
                guard let entry = watched[socket] else { continue }
                // One report per arming: the socket is armed again unless the answer is complete.
                do throws(DatabaseError) {
                    // Sends what is left (a no-op once all went out): true when nothing is.
                    let flushed = try entry.connection.flush()
                    if event.events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
                        let outcome = entry.connection.receive()
                    {
                        complete(socket, entry, outcome)
                        continue
                    }
                    if let code = arm(entry.connection, socket, flushed: flushed) {
                        throw DatabaseError(sqlState: "08006", message: "epoll_ctl: \(String(cString: strerror(code)))")
                    }
                } catch {
                    complete(socket, entry, .failure(error))
                }
            }
            // The deadlines once a tick, not on every answer: under load the poller wakes for
            // each one, and each look takes every pool's lock, which the workers queue under.
            let now = monotonicMicroseconds()
            guard now - expired >= UInt64(Self.tick) * 1000 else { continue }
            expired = now
            for pool in pools.withLock({ $0.compactMap(\.pool) }) { pool.expire(now: now) }
        }
        running.store(false, ordering: .releasing)
    }

    /// Forgets the call before the connection goes back to its pool, where the next call may
    /// be sent on it at once (the socket stays in the set, disarmed by its one report).
    private func complete(_ socket: Int32, _ entry: Watched, _ outcome: Result<[[String?]], DatabaseError>) {
        watched.set(socket, nil)
        entry.pool.finish(entry.connection, entry.call, outcome)
    }
}

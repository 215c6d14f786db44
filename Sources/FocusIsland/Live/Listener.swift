// Listener: the one LISTEN connection of this server process. Its own libpq connection (never
// from the pool: a pooled session is lent to requests, and a transaction-pooling PgBouncer
// cannot carry LISTEN), on its own thread, waiting on the socket with poll().
//
// Each notification on `focus_events` is `<user id>:<event id>` or `*:<event id>` for everyone
// (catalog.changed, tips.changed), or `<user id>:token` when one of the user's tokens ended
// (0018_names_and_token_ends.sql: their clients ask again, get 401 and end). It only rings: the woken clients read `app.events` through
// `api.events_list` from their own cursor, so a lost notification loses nothing. After any
// (re)connect the listener rings every client and empties the shared cache, because
// notifications sent while it was away are gone. Backoff between attempts doubles from 0.1 s
// to 1 s: one connection attempt a second is cheap, and streams wait for it to hear again.
import CLibPQ
import Foundation
import Glibc
import Synchronization

public final class Listener: Sendable {
    public static let channel = "focus_events"
    /// Microseconds between calls to api.jobs_run (a minute): it runs the jobs of
    /// app.scheduled_jobs that are due by the database's clock (room settlement, the hourly prunes).
    static let jobsEvery: UInt64 = 60_000_000
    private let conninfo: String
    private let streams: EventStreams
    private let cache: SharedCache
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    /// Connections made so far (tests and logs: a reconnect increments it).
    private let connects = Atomic<Int>(0)

    public init(conninfo: String, streams: EventStreams, cache: SharedCache, logger: Logger) {
        self.conninfo = conninfo
        self.streams = streams
        self.cache = cache
        self.logger = logger
    }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "listener"
        thread.start()
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// How many times the listener has connected (1 after start, more after restarts).
    public var connections: Int { connects.load(ordering: .acquiring) }

    private func run() {
        var backoff: UInt32 = 100_000
        while !isStopping {
            guard let connection = connect() else {
                usleep(backoff)
                backoff = min(backoff * 2, 1_000_000)
                continue
            }
            backoff = 100_000
            let count = connects.add(1, ordering: .acquiringAndReleasing).newValue
            if count > 1 { logger.info("listener: connected again; streams re-read from their cursors") }
            cache.setListening(true)
            streams.wakeAll()
            listen(on: connection)
            cache.setListening(false)
            PQfinish(connection)
            if !isStopping { logger.error("listener: lost the LISTEN connection; reconnecting") }
        }
    }

    private func connect() -> OpaquePointer? {
        guard let connection = PQconnectdb(conninfo) else { return nil }
        guard PQstatus(connection) == CONNECTION_OK else {
            PQfinish(connection)
            return nil
        }
        let result = PQexec(connection, "listen \(Self.channel)")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            PQfinish(connection)
            return nil
        }
        return connection
    }

    /// Waits on the socket and hands out notifications until the connection breaks or stop().
    /// Once a minute (and at each connect) it also asks SQL to run the scheduled jobs that are due
    /// (api.jobs_run: room settlement every minute, pruning every hour; sql/api/120_rooms.sql).
    private func listen(on connection: OpaquePointer) {
        var ran: UInt64 = 0
        while !isStopping {
            let now = monotonicMicroseconds()
            if ran == 0 || now - ran >= Self.jobsEvery {
                ran = now
                let result = PQexec(connection, "select api.jobs_run()")
                if PQresultStatus(result) != PGRES_TUPLES_OK {
                    logger.error(
                        "listener: api.jobs_run failed: \(String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)")
                }
                PQclear(result)
            }
            // Notifications libpq already read (during the statement above) are queued in it and
            // will not make the socket readable again: hand them out before waiting.
            deliverQueued(connection)
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return }
            deliverQueued(connection)
        }
    }

    private func deliverQueued(_ connection: OpaquePointer) {
        while let notification = PQnotifies(connection) {
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            PQfreemem(notification)
            deliver(payload)
        }
    }

    /// `<user id>:<event id>` wakes that user's clients; `*:<event id>` is for everyone and
    /// may change a shared answer, so the cache is emptied first.
    func deliver(_ payload: String) {
        guard let colon = payload.firstIndex(of: ":") else { return }
        let recipient = String(payload[..<colon])
        if recipient == "*" {
            cache.invalidate()
            streams.wakeAll()
        } else {
            streams.wake(user: recipient)
        }
    }
}

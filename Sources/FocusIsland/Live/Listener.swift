// Listener: the one LISTEN connection of this server process. Its own libpq connection (never
// from the pool: a pooled session is lent to requests, and a transaction-pooling PgBouncer
// cannot carry LISTEN), on its own thread, waiting on the socket with poll().
//
// Each notification on `focus_events` is `*:<event id>` for everyone (catalog.changed,
// tips.changed, config.changed), or `<user id>:token` when one of the user's tokens ended
// (0018_names_and_token_ends.sql: their clients ask again, get 401 and end). Personal events
// do not notify (a NOTIFY serialises the commits of all notifying transactions,
// 0032_event_ids.sql): every `ringEvery` the listener asks `api.events_ring` which users have
// events that became readable since its last answer, and rings them. It only rings: the woken
// clients read `app.events` through `api.events_list` from their own cursor, so a lost
// notification loses nothing. After any
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
    /// Milliseconds between calls to api.events_ring: the most a personal event waits, once
    /// readable, for its clients to be rung (docs/performance.md, "Events").
    static let ringEvery: Int32 = 10
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
        var through: String?
        var rung: UInt64 = 0
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
            if now - rung >= UInt64(Self.ringEvery) * 1000 {
                rung = now
                through = ring(connection, after: through)
                guard PQstatus(connection) == CONNECTION_OK else { return }
            }
            // Notifications libpq already read (during the statements above) are queued in it and
            // will not make the socket readable again: hand them out before waiting.
            deliverQueued(connection)
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Self.ringEvery)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return }
            deliverQueued(connection)
        }
    }

    /// One api.events_ring: rings the users (and everyone, for a broadcast) whose events became
    /// readable after `after` (nil: just connected, start from now); the next call's `after`
    /// (`after` again when the call failed: the next one asks the same).
    private func ring(_ connection: OpaquePointer, after: String?) -> String? {
        let result: OpaquePointer? =
            if let after {
                after.withCString { value in
                    var values: [UnsafePointer<CChar>?] = [value]
                    return PQexecParams(
                        connection, "select user_id, through from api.events_ring($1::bigint)", 1, nil, &values, nil, nil, 0)
                }
            } else {
                PQexec(connection, "select user_id, through from api.events_ring(null)")
            }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) > 0 else {
            logger.error("listener: api.events_ring failed: \(String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)")
            return after
        }
        for row in 0..<PQntuples(result) where PQgetisnull(result, row, 0) == 0 {
            deliver(String(cString: PQgetvalue(result, row, 0)) + ":")
        }
        return String(cString: PQgetvalue(result, 0, 1))
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

// Listener: the one LISTEN connection of this server process. Its own libpq connection (never
// from the pool: a pooled session is lent to requests, and a transaction-pooling PgBouncer
// cannot carry LISTEN), on its own thread, waiting with poll() on its socket and on an eventfd.
//
// Each notification on `focus_events` is `*:<event id>` for everyone (catalog.changed,
// tips.changed, config.changed), `<user id>:token` when one of the user's tokens ended
// (0018_names_and_token_ends.sql: their clients ask again, get 401 and end), or `ring` from
// another server's listener (below). Personal events do not notify (a NOTIFY serialises the
// commits of all notifying transactions, 0032_event_ids.sql): the listener asks
// `api.events_ring` which users have events that became readable since its last answer, and
// rings them (docs/performance.md, "Streams: the doorbell"). It asks
//   - at once when a request of this server has committed a write (`poke()`, from the
//     pipeline; coalesced: one ring at a time, the next right after); when that ring rang
//     someone it also sends `ring` in a transaction of its own (asynchronous commit: no writer
//     waits for it), and every other server's listener rings when it hears it;
//   - every `ringEvery` otherwise (writers that are no server: psql, jobs, another version);
//   - sooner while committed events wait for an older writer to end (the horizon): after 1 ms,
//     then 2, 4, 8, until they can be read.
// It only rings: the woken clients read `app.events` through `api.events_list` from their own
// cursor, so a lost notification loses nothing. After any
// (re)connect the listener rings every client and empties the shared cache, because
// notifications sent while it was away are gone. Backoff between attempts doubles from 0.1 s
// to 1 s: one connection attempt a second is cheap, and streams wait for it to hear again.
import CLibPQ
import CLinux
import Foundation
import Glibc
import Synchronization

public final class Listener: Sendable {
    public static let channel = "focus_events"
    /// Milliseconds between calls to api.events_ring: the most a personal event waits, once
    /// readable, for its clients to be rung (docs/performance.md, "Events").
    static let ringEvery: Int32 = 10
    /// Milliseconds before the first ring again while committed events wait for an older writer
    /// (doubling up to `ringEvery`).
    static let heldFirst: Int32 = 1
    /// The payload of the doorbell one server sends the others after its ring rang someone.
    static let doorbell = "ring"
    private let conninfo: String
    private let streams: EventStreams
    private let cache: SharedCache
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    /// Connections made so far (tests and logs: a reconnect increments it).
    private let connects = Atomic<Int>(0)
    /// A request of this server committed a write since the last ring (`poke`).
    private let poked = Atomic<Bool>(false)
    /// Another server's doorbell was heard since the last ring (the listener's thread only,
    /// atomic because `deliver` is reachable from tests).
    private let heard = Atomic<Bool>(false)
    /// Rings the listener's thread out of poll() (written once per poke that found it idle).
    private let bell: Int32
    /// Doorbells sent to and heard from other servers (metrics, tests).
    private let sent = Atomic<Int>(0)
    private let heardCount = Atomic<Int>(0)

    /// EVENTS_DOORBELL: whether requests' writes poke, and whether a poke's ring tells the others.
    private let doorbellMode: Doorbell

    public init(
        conninfo: String, streams: EventStreams, cache: SharedCache, logger: Logger, doorbell: Doorbell = .notify
    ) {
        self.conninfo = conninfo
        self.doorbellMode = doorbell
        self.streams = streams
        self.cache = cache
        self.logger = logger
        bell = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    deinit {
        close(bell)
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

    /// Doorbells this listener sent to the other servers, and heard from them.
    public var doorbellsSent: Int { sent.load(ordering: .acquiring) }
    public var doorbellsHeard: Int { heardCount.load(ordering: .acquiring) }

    /// The pipeline's one hook (Statement.response, HTTP/Statement.swift): `route`'s statement
    /// has returned, so what it wrote has committed. A route that may write (any method but GET
    /// and HEAD) pokes the listener.
    public func committed(_ route: Route) {
        if doorbellMode != .off && route.method != "GET" && route.method != "HEAD" { poke() }
    }

    /// Ring now rather than at the next tick. Cheap and never blocking: the first poke after a
    /// ring wakes the listener's thread, later ones before its next ring only mark it.
    public func poke() {
        guard !poked.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(bell, &one, 8)
    }

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

    /// Waits on the socket and the bell, hands out notifications and rings until the connection
    /// breaks or stop(). The scheduled jobs run on a connection of their own (Live/JobRunner.swift).
    private func listen(on connection: OpaquePointer) {
        var through: String?
        var rung: UInt64 = 0
        /// Milliseconds from `rung` to the next ring: `ringEvery`, or less while events are held.
        var wait = Self.ringEvery
        /// Whether the last ring found committed events waiting for an older writer.
        var held = false
        /// A poke's ring found events held: the other servers are still to be told.
        var owed = false
        while !isStopping {
            let now = monotonicMicroseconds()
            let byRequest = poked.exchange(false, ordering: .acquiringAndReleasing)
            let byDoorbell = heard.exchange(false, ordering: .acquiringAndReleasing)
            if byRequest || byDoorbell || now - rung >= UInt64(wait) * 1000 {
                rung = now
                let answer = ring(connection, after: through)
                through = answer.through
                wait = answer.held ? (held ? min(wait * 2, Self.ringEvery) : Self.heldFirst) : Self.ringEvery
                held = answer.held
                // A request's events that wait for an older writer are announced by the ring
                // that finds them readable.
                let announce = doorbellMode == .notify && (byRequest || owed)
                if announce && answer.rang { ringOthers(connection) }
                owed = announce && answer.held
                guard PQstatus(connection) == CONNECTION_OK else { return }
            }
            // Notifications libpq already read (during the statements above) are queued in it and
            // will not make the socket readable again: hand them out before waiting.
            deliverQueued(connection)
            if poked.load(ordering: .acquiring) || heard.load(ordering: .acquiring) { continue }
            var descriptors = [
                pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0),
                pollfd(fd: bell, events: Int16(POLLIN), revents: 0),
            ]
            let left = Int64(wait) * 1000 - Int64(monotonicMicroseconds() - rung)
            let ready = poll(&descriptors, 2, Int32(max(0, (left + 999) / 1000)))
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(bell, &count, 8)
            }
            if descriptors[0].revents != 0 {
                guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return }
                deliverQueued(connection)
            }
        }
    }

    /// What one api.events_ring answered: the next call's `after`, whether it rang anyone, and
    /// whether committed events still wait for an older writer.
    private struct RingAnswer {
        let through: String?
        let rang: Bool
        let held: Bool
    }

    /// One api.events_ring: rings the users (and everyone, for a broadcast) whose events became
    /// readable after `after` (nil: just connected, start from now); the next call's `after`
    /// (`after` again when the call failed: the next one asks the same).
    private func ring(_ connection: OpaquePointer, after: String?) -> RingAnswer {
        let result: OpaquePointer? =
            if let after {
                after.withCString { value in
                    var values: [UnsafePointer<CChar>?] = [value]
                    return PQexecParams(
                        connection, "select user_id, through, held from api.events_ring($1::bigint)", 1, nil, &values,
                        nil, nil, 0)
                }
            } else {
                PQexec(connection, "select user_id, through, held from api.events_ring(null)")
            }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) > 0 else {
            logger.error("listener: api.events_ring failed: \(String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)")
            return RingAnswer(through: after, rang: false, held: false)
        }
        var rang = false
        for row in 0..<PQntuples(result) where PQgetisnull(result, row, 0) == 0 {
            rang = true
            deliver(String(cString: PQgetvalue(result, row, 0)) + ":")
        }
        return RingAnswer(
            through: String(cString: PQgetvalue(result, 0, 1)), rang: rang,
            held: String(cString: PQgetvalue(result, 0, 2)) == "t")
    }

    /// The doorbell for the other servers: `ring` on the channel in a transaction of its own,
    /// committed asynchronously. It is sent after the writes it announces have committed, so no
    /// writer waits for it; it waits only for another notifying transaction's commit (a
    /// broadcast's, or another server's doorbell), and its xid holds the horizon for as long.
    private func ringOthers(_ connection: OpaquePointer) {
        let result = PQexec(
            connection,
            "begin; set local synchronous_commit = off; select pg_notify('\(Self.channel)', '\(Self.doorbell)'); commit")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            logger.error("listener: the doorbell failed: \(String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)")
            return
        }
        sent.add(1, ordering: .relaxed)
    }

    private func deliverQueued(_ connection: OpaquePointer) {
        let own = PQbackendPID(connection)
        while let notification = PQnotifies(connection) {
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            let sender = notification.pointee.be_pid
            PQfreemem(notification)
            // Its own doorbell: this listener rang before sending it.
            if payload == Self.doorbell && sender == own { continue }
            deliver(payload)
        }
    }

    /// `<user id>:<event id>` wakes that user's clients; `*:<event id>` is for everyone and
    /// may change a shared answer, so the cache is emptied first; `ring` (another server's
    /// doorbell) makes the listener ring before it waits again.
    func deliver(_ payload: String) {
        if payload == Self.doorbell {
            heardCount.add(1, ordering: .relaxed)
            heard.store(true, ordering: .releasing)
            return
        }
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

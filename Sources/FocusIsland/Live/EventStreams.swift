// EventStreams: every client waiting for events in this process, by user: SSE streams and
// long-polls. The listener rings (`wake(user:)`, `wakeAll()`); a woken client asks SQL for
// what follows its cursor (the table is the truth, the notification only the doorbell).
// A ticker marks heartbeats due and long-polls expired, and wakes them.
//
// Waiting clients hold no thread: a long-poll is a suspended libmicrohttpd connection
// (Server/MHD/EventsEndpoint.swift); an SSE stream, once its headers are out, is a socket that a
// writer thread watches (Live/StreamWriters.swift). A client's flags are behind its Mutex,
// and a client is resumed only under it and only if it sleeps (resuming a connection that
// is not suspended is undefined behaviour in libmicrohttpd). `registry` guards the clients.
import Foundation
import Synchronization

/// One waiting client: an SSE stream or a long-poll, on one libmicrohttpd connection.
final class LiveClient: @unchecked Sendable {
    enum Kind { case stream, poll }
    let kind: Kind
    let userID: String
    let token: String
    /// The address its connection is counted under (PER_IP_CONNECTION_LIMIT counts a stream a
    /// writer holds): the peer's, or the client's a PROXY protocol header named, never one a
    /// forwarding header named (Request.connectionAddress).
    let address: String
    /// Its connection (Server/MHD/HTTPConnection.swift): suspended while a long-poll waits.
    let connection: HTTPConnection
    /// The socket a writer holds, -1 before (and after) that; the writer's thread only.
    var socket: Int32 = -1
    /// The last event id delivered (SSE); the next query asks for events after it.
    var cursor: String
    /// Monotonic microseconds: a long-poll's end (set once); for a stream, when the next
    /// heartbeat is due (read and moved by the ticker thread only).
    let until: UInt64
    var deadline: UInt64
    /// Monotonic microseconds when the token expires: from then on each heartbeat asks SQL,
    /// which answers 401 and ends the stream. (A token ended before that rings the user's
    /// clients through the listener, and the fetch that follows ends them the same way.)
    let tokenEnds: UInt64

    /// Why the client should work, and where it sleeps.
    struct Flags {
        /// Where it waits: its libmicrohttpd connection (nil), or the writer that took over its socket.
        fileprivate(set) var writer: StreamWriter?
        fileprivate(set) var suspended = false
        /// Something may have happened: ask SQL before sleeping again.
        var dirty = true
        var heartbeatDue = false
        /// The last fetch met no database: ask again at the next heartbeat.
        var retry = false
        var expired = false
        /// The server is stopping: end now.
        var closing = false
        /// The connection is gone (libmicrohttpd completed it): never resume it again.
        fileprivate(set) var finished = false
    }
    private let flags = Mutex(Flags())

    /// Bytes of SSE text not yet written (only the thread that runs the client touches these).
    var pending: [UInt8] = []
    var sent = 0
    /// The stream's last frame, the retry hint, is queued (its writer's thread only).
    var hinted = false

    init(
        kind: Kind, userID: String, token: String, address: String, connection: HTTPConnection, cursor: String,
        deadline: UInt64, tokenEnds: UInt64 = .max
    ) {
        self.kind = kind
        self.userID = userID
        self.token = token
        self.address = address
        self.connection = connection
        self.cursor = cursor
        self.until = deadline
        self.deadline = deadline
        self.tokenEnds = tokenEnds
    }

    /// Applies `change` to the flags and resumes the connection if it sleeps.
    func wake(_ change: (inout Flags) -> Void) {
        flags.withLock { flags in
            change(&flags)
            if flags.suspended && !flags.finished {
                flags.suspended = false
                if let writer = flags.writer { writer.schedule(self) } else { connection.resume() }
            }
        }
    }

    /// Applies `change` to the flags without waking the client.
    func update(_ change: (inout Flags) -> Void) {
        flags.withLock { change(&$0) }
    }

    /// The SSE stream's socket is now `writer`'s (its connection is ending): wakes go there.
    func adopt(socket: Int32, writer: StreamWriter) {
        flags.withLock { flags in
            self.socket = socket
            flags.writer = writer
        }
    }

    /// Whether a writer holds the stream (its libmicrohttpd request ending does not end it).
    var adopted: Bool { flags.withLock { $0.writer != nil } }

    /// What the connection's thread should do next; `.sleep` has already suspended it.
    enum Next { case fetch, retry, heartbeat, expire, close, sleep }

    /// Called on the thread that runs the client (libmicrohttpd's callbacks, where suspending
    /// is allowed, or its writer's): takes one reason to work, or sleeps until a wake.
    func next() -> Next {
        flags.withLock { flags in
            if flags.closing { return .close }
            if flags.dirty {
                flags.dirty = false
                return .fetch
            }
            if flags.expired { return .expire }
            if flags.heartbeatDue {
                flags.heartbeatDue = false
                if flags.retry {
                    flags.retry = false
                    return .retry
                }
                return .heartbeat
            }
            flags.suspended = true
            if flags.writer == nil { connection.suspend() }
            return .sleep
        }
    }

    func finish() {
        flags.withLock { $0.finished = true }
    }
}

public final class EventStreams: @unchecked Sendable {
    /// Seconds between heartbeat comments on an idle stream.
    let heartbeat: UInt64
    private struct Registry {
        var byUser: [String: [ObjectIdentifier: LiveClient]] = [:]
        /// Set by closeAll: no client may start waiting once the server stops.
        var stopping = false
    }
    private let registry = Mutex(Registry())
    private var ticker: Thread?

    /// `heartbeat`: seconds between comments on an idle stream (15; less than the idle timeout).
    public init(heartbeat: Int = 15) {
        self.heartbeat = UInt64(max(1, heartbeat))
    }

    enum Registration { case added, full, stopping }

    /// Adds a client while its user has fewer than `limit` clients of its kind here (streams:
    /// max_streams_per_user, waiting long-polls: max_polls_per_user), and none once the server
    /// is stopping (libmicrohttpd must not stop with one suspended).
    func register(_ client: LiveClient, limit: Int) -> Registration {
        registry.withLock { registry in
            if registry.stopping { return .stopping }
            var clients = registry.byUser[client.userID] ?? [:]
            if clients.values.count(where: { $0.kind == client.kind }) >= limit {
                return .full
            }
            clients[ObjectIdentifier(client)] = client
            registry.byUser[client.userID] = clients
            return .added
        }
    }

    func unregister(_ client: LiveClient) {
        registry.withLock { registry in
            registry.byUser[client.userID]?[ObjectIdentifier(client)] = nil
            if registry.byUser[client.userID]?.isEmpty == true { registry.byUser[client.userID] = nil }
        }
    }

    private func clients(of userID: String? = nil) -> [LiveClient] {
        registry.withLock { registry in
            if let userID { return Array((registry.byUser[userID] ?? [:]).values) }
            return registry.byUser.values.flatMap(\.values)
        }
    }

    /// Something happened for this user: each of their clients asks SQL again.
    public func wake(user userID: String) {
        for client in clients(of: userID) { client.wake { $0.dirty = true } }
    }

    /// Something happened for everyone (a broadcast), or the listener reconnected and may
    /// have missed notifications: every client asks SQL from its cursor.
    public func wakeAll() {
        for client in clients() { client.wake { $0.dirty = true } }
    }

    /// The server is stopping: every stream ends with a retry hint and every long-poll answers
    /// now, so that no connection is suspended when libmicrohttpd stops (its manual forbids
    /// that), and each client reconnects to another server at once. How many of each.
    @discardableResult
    public func closeAll() -> (streams: Int, polls: Int) {
        registry.withLock { $0.stopping = true }
        let closing = clients()
        for client in closing { client.wake { $0.closing = true } }
        return (closing.count { $0.kind == .stream }, closing.count { $0.kind == .poll })
    }

    /// A stream's last frame when the server stops: `id:` sets the client's Last-Event-ID to the
    /// stream's cursor (also when no event came yet: an EventSource keeps an id without data),
    /// so that its next stream, on another server, resumes exactly there; `retry:` (ms) makes
    /// it reconnect within a second, spread so that thousands of streams do not arrive at the
    /// other servers in the same millisecond.
    static func retryHint(cursor: String) -> String {
        "id: \(cursor)\nretry: \(Int.random(in: 0..<retrySpread))\n\n"
    }
    /// Milliseconds over which the retry hints of a stop are spread.
    static let retrySpread = 1000
    /// Retry-After (seconds) of a long-poll answered because the server stops.
    static let pollRetryAfter = "1"

    /// Open streams and waiting long-polls (logs, tests).
    public var count: Int {
        registry.withLock { registry in registry.byUser.values.reduce(0) { $0 + $1.count } }
    }

    /// One user's open streams and waiting long-polls (tests).
    public func count(of userID: String) -> Int {
        registry.withLock { $0.byUser[userID]?.count ?? 0 }
    }

    /// Heartbeats and long-poll deadlines, checked every 250 ms on a thread of their own.
    public func startTicker() {
        let thread = Thread { [self] in
            while true {
                usleep(250_000)
                tick(now: monotonicMicroseconds())
            }
        }
        thread.name = "events-ticker"
        thread.start()
        ticker = thread
    }

    func tick(now: UInt64) {
        for client in clients() where now >= client.deadline {
            switch client.kind {
            case .stream:
                client.deadline = now + heartbeat * 1_000_000
                let tokenEnded = now >= client.tokenEnds
                client.wake { client in
                    client.heartbeatDue = true
                    if tokenEnded { client.dirty = true }
                }
            case .poll:
                client.deadline = .max
                client.wake { $0.expired = true }
            }
        }
    }
}

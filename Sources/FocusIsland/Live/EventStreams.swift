// EventStreams: every client waiting for events in this process, by user: SSE streams and
// long-polls. The listener rings (`wake(user:)`, `wakeAll()`); a woken client asks SQL for
// what follows its cursor (the table is the truth, the notification only the doorbell).
// A ticker marks heartbeats due and long-polls expired, and wakes them.
//
// Waiting clients hold no thread: a long-poll is a suspended libmicrohttpd connection
// (Server/EventsEndpoint.swift); an SSE stream, once its headers are out, is a socket that a
// writer thread watches (Live/StreamWriters.swift). `LiveClient.lock` guards the client's
// flags, and a client is resumed only under it and only if it sleeps (resuming a connection
// that is not suspended is undefined behaviour in libmicrohttpd). `lock` guards `byUser`.
import CMicroHTTPD
import Foundation

/// One waiting client: an SSE stream or a long-poll, on one libmicrohttpd connection.
final class LiveClient: @unchecked Sendable {
    enum Kind { case stream, poll }
    let kind: Kind
    let userID: String
    let token: String
    /// The client's address (PER_IP_CONNECTION_LIMIT counts a stream a writer holds).
    let address: String
    let connection: OpaquePointer
    /// Where it waits (guarded by `lock`): its libmicrohttpd connection, or the writer that
    /// took over its socket.
    private var writer: StreamWriter?
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

    let lock = NSLock()
    // Guarded by `lock`:
    var suspended = false
    /// Something may have happened: ask SQL before sleeping again.
    var dirty = true
    var heartbeatDue = false
    /// The last fetch met no database: ask again at the next heartbeat.
    var retry = false
    var expired = false
    /// The server is stopping: end now.
    var closing = false
    /// The connection is gone (libmicrohttpd completed it): never resume it again.
    var finished = false

    /// Bytes of SSE text not yet written (only the thread that runs the client touches these).
    var pending: [UInt8] = []
    var sent = 0

    init(
        kind: Kind, userID: String, token: String, address: String, connection: OpaquePointer, cursor: String,
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
    func wake(_ change: (LiveClient) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(self)
        if suspended && !finished {
            suspended = false
            if let writer { writer.schedule(self) } else { MHD_resume_connection(connection) }
        }
    }

    /// The SSE stream's socket is now `writer`'s (its connection is ending): wakes go there.
    func adopt(socket: Int32, writer: StreamWriter) {
        lock.lock()
        defer { lock.unlock() }
        self.socket = socket
        self.writer = writer
    }

    /// Whether a writer holds the stream (its libmicrohttpd request ending does not end it).
    var adopted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return writer != nil
    }

    /// What the connection's thread should do next; `.sleep` has already suspended it.
    enum Next { case fetch, retry, heartbeat, expire, close, sleep }

    /// Called on the thread that runs the client (libmicrohttpd's callbacks, where suspending
    /// is allowed, or its writer's): takes one reason to work, or sleeps until a wake.
    func next() -> Next {
        lock.lock()
        defer { lock.unlock() }
        if closing { return .close }
        if dirty {
            dirty = false
            return .fetch
        }
        if expired { return .expire }
        if heartbeatDue {
            heartbeatDue = false
            if retry {
                retry = false
                return .retry
            }
            return .heartbeat
        }
        suspended = true
        if writer == nil { MHD_suspend_connection(connection) }
        return .sleep
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        finished = true
    }
}

public final class EventStreams: @unchecked Sendable {
    /// Seconds between heartbeat comments on an idle stream.
    let heartbeat: UInt64
    private let lock = NSLock()
    private var byUser: [String: [ObjectIdentifier: LiveClient]] = [:]
    /// Set by closeAll: no client may start waiting once the server stops.
    private var stopping = false
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
        lock.lock()
        defer { lock.unlock() }
        if stopping { return .stopping }
        var clients = byUser[client.userID] ?? [:]
        if clients.values.count(where: { $0.kind == client.kind }) >= limit {
            return .full
        }
        clients[ObjectIdentifier(client)] = client
        byUser[client.userID] = clients
        return .added
    }

    func unregister(_ client: LiveClient) {
        lock.lock()
        defer { lock.unlock() }
        byUser[client.userID]?[ObjectIdentifier(client)] = nil
        if byUser[client.userID]?.isEmpty == true { byUser[client.userID] = nil }
    }

    private func clients(of userID: String? = nil) -> [LiveClient] {
        lock.lock()
        defer { lock.unlock() }
        if let userID { return Array((byUser[userID] ?? [:]).values) }
        return byUser.values.flatMap(\.values)
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

    /// The server is stopping: every stream ends and every long-poll answers now, so that no
    /// connection is suspended when libmicrohttpd stops (its manual forbids that).
    public func closeAll() {
        lock.lock()
        stopping = true
        lock.unlock()
        for client in clients() { client.wake { $0.closing = true } }
    }

    /// Open streams and waiting long-polls (logs, tests).
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return byUser.values.reduce(0) { $0 + $1.count }
    }

    /// One user's open streams and waiting long-polls (tests).
    public func count(of userID: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return byUser[userID]?.count ?? 0
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

// HTTPServer: the public port's libmicrohttpd glue, on a Daemon (MHD/Daemon.swift). An epoll thread pool reads requests; each worker calls the
// pipeline. With DB_ASYNC=on (the default) a request that needs its statement is answered at
// once if the answer comes within DB_ANSWER_WAIT (5 ms), else suspended (MHD_suspend_connection)
// while the statement runs and resumed by the database poller with its answer
// (Database/DatabasePoller.swift), so no worker waits for the database longer than that; with
// DB_ASYNC=off the worker waits for it, and a database call blocks only its own worker.
// Limits that libmicrohttpd leaves open by default are set here: idle timeout, total and
// per-IP connection limits, per-connection memory, a body limit per route, and (with
// HeadDeadline) a deadline for each request head and a fast refusal when full. The per-IP
// limit is counted by the accept policy (Server/AddressLimit.swift), which exempts trusted
// proxies; with PROXY_PROTOCOL_PORT, Server/ProxyListener.swift reads each connection's PROXY
// header and hands the socket to the same daemon under the client's address (Daemon.add).
// A stop drains first (MHD/GracefulStop.swift): while it does, every answer closes its connection.
import CMicroHTTPD
import Glibc
import Synchronization

public final class HTTPServer: Sendable {
    let pipeline: Pipeline
    let configuration: Configuration
    /// Clients waiting for events (the events route: Server/EventsEndpoint.swift); nil: no live events.
    let streams: EventStreams?
    /// The threads that hold SSE streams' sockets once their headers are out (Live/StreamWriters.swift).
    let writers: StreamWriters?
    /// Requests whose first byte arrived and whose response is not yet sent.
    let inFlight = Atomic<Int>(0)
    /// Requests suspended while their statement runs (DB_ASYNC=on), for a stop to answer.
    let suspended = SuspendedRequests()
    /// The stop's phase, shared with the pipeline's /ready (Server/Drain.swift).
    let drain: Drain
    let daemon: Daemon
    let headDeadline: HeadDeadline
    /// Connections by client address, for PER_IP_CONNECTION_LIMIT (the accept policy).
    let addresses: AddressLimit
    /// PROXY_PROTOCOL_PORT's listener; nil when it is not set.
    let proxy: ProxyListener?

    /// Memory libmicrohttpd may use per connection. 64 KiB made 1,000 idle keep-alive
    /// connections cost 90 MB of RSS; 16 KiB costs 16 KiB each (docs/hardening.md has the figures).
    /// Heads up to `maxHead` are served; a larger one up to about 15.8 KiB gets our 431
    /// problem+json; beyond, libmicrohttpd's own 431/414 (HTML), and in a band of about
    /// 300 bytes at the pool's edge no answer at all (it has no room left to write one).
    static let connectionMemory = 16 * 1024
    /// The largest request head served (request line and headers): the 8 KiB most servers
    /// allow, and far above what the app sends (a bearer token and a few short headers).
    static let maxHead = 8 * 1024

    /// `drain`: the stop's phase, the one the pipeline's /ready reads (Application gives both).
    public init(pipeline: Pipeline, configuration: Configuration, streams: EventStreams? = nil, drain: Drain = Drain()) {
        self.pipeline = pipeline
        self.drain = drain
        self.configuration = configuration
        self.headDeadline = HeadDeadline(
            headTimeoutSeconds: configuration.headTimeout,
            idleTimeoutSeconds: configuration.idleTimeout,
            logger: pipeline.logger)
        let daemon = Daemon()
        self.daemon = daemon
        self.addresses = AddressLimit(limit: configuration.perIPConnectionLimit)
        self.proxy = configuration.proxyProtocolPort.map { _ in
            ProxyListener(trusted: configuration.trustedProxies, logger: pipeline.logger) { socket, address, length in
                daemon.add(socket: socket, address: address, length: length)
            }
        }
        self.streams = streams
        self.writers = streams.map { streams in
            StreamWriters(
                threads: configuration.httpThreads, streams: streams,
                fetch: { [pipeline] client in HTTPServer.fetch(into: client, pipeline: pipeline) })
        }
    }

    /// The port actually bound (useful when PORT=0 asks the kernel to choose).
    public var port: UInt16 { daemon.port }
    /// The PROXY protocol listener's port actually bound; nil without PROXY_PROTOCOL_PORT.
    public var proxyPort: UInt16? { proxy?.port }

    /// Listens; refuses to start on a libmicrohttpd the stream hand-off was not verified with
    /// (`libraryVersion`: the loaded library's, MHD/LibraryVersion.swift).
    public func start() throws(ServerError) { try start(libraryVersion: LibraryVersion.installed) }

    func start(libraryVersion: String) throws(ServerError) {
        signal(SIGPIPE, SIG_IGN)
        let limits = Daemon.Limits(
            threads: configuration.httpThreads, idleTimeout: configuration.idleTimeout,
            // libmicrohttpd's own limit only stops accepting (clients then wait unanswered
            // in the backlog); the accept policy refuses at CONNECTION_LIMIT first, and
            // this margin covers accepts racing on several worker threads.
            connectionLimit: configuration.connectionLimit + 64,
            // PER_IP_CONNECTION_LIMIT is the accept policy's (AddressLimit): libmicrohttpd's own
            // would cap a trusted balancer's one address like any client's.
            perIPConnectionLimit: nil, connectionMemory: Self.connectionMemory, listenBacklog: 1024)
        let callbacks = Daemon.Callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(), access: accessHandler, completed: requestCompleted,
            notify: connectionNotified, accept: acceptPolicy)
        try daemon.start(
            host: configuration.host, port: configuration.port, limits: limits, live: true, callbacks: callbacks,
            libraryVersion: libraryVersion)
        if let proxy, let proxyPort = configuration.proxyProtocolPort {
            do {
                try proxy.start(host: configuration.host, port: proxyPort)
            } catch {
                daemon.stop()
                throw error
            }
        }
        headDeadline.start()
    }

    /// Queues `response`; while the server drains, with `Connection: close`, so that the client
    /// (a balancer) sends no further request on this connection.
    func answer(_ connection: OpaquePointer, _ response: Response) -> MHD_Result {
        send(connection, response, close: drain.draining)
    }
}

/// The state of one request across libmicrohttpd's calls: headers, then body chunks, then done.
final class RequestState {
    let startedAt = monotonicMicroseconds()
    let limit: Int
    /// The route matched from the head, handed to the pipeline with the request.
    let match: RouteMatch
    var body: [UInt8] = []
    /// Bytes of an oversize chunked body read and dropped so far.
    var discarded = 0
    /// How much of an oversize chunked body is read (and dropped) to answer 413 at its end.
    static let discardLimit = 32 << 20
    /// Set while this request is an event stream or a waiting long-poll.
    var live: LiveClient?
    /// Its suspension while its statement runs, and the answer it is resumed with
    /// (MHD/SuspendedRequests.swift), made and sent on the worker when it resumes.
    let parked = ParkedRequest()

    init(limit: Int, match: RouteMatch) {
        self.limit = limit
        self.match = match
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
    guard let cls, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let methodText = String(cString: method), path = String(cString: url)

    // First call: headers only. Refuse an announced oversize body before reading it.
    guard let existing = state.pointee else {
        // Sequentially consistent with the stop's look at it (MHD/GracefulStop.swift): a request
        // counted after the stop saw none in flight sees the refusal below.
        server.inFlight.add(1, ordering: .sequentiallyConsistent)
        server.headDeadline.headArrived(focus_connection_fd(connection))
        let match = server.pipeline.router.match(method: methodText, path: path)
        let request = RequestState(limit: server.pipeline.bodyLimit(match), match: match)
        state.pointee = Unmanaged.passRetained(request).toOpaque()
        // libmicrohttpd stops next: nothing may start that could suspend.
        if server.drain.refusing { return server.answer(connection, HTTPServer.stoppingAnswer()) }
        if focus_request_head_size(connection) > HTTPServer.maxHead {
            return server.answer(
                connection,
                Problem(
                    431, "header_too_large",
                    "The request head is larger than 8 KiB."
                ).response)
        }
        if let length = header(connection, "content-length" as StaticString).flatMap({ Int($0) }), length > request.limit {
            var oversize = makeRequest(connection, methodText, path, [], server.configuration.trustedProxies)
            oversize.bodyExceededLimit = true
            oversize.match = match
            return server.answer(connection, server.pipeline.respond(to: oversize, startedAt: request.startedAt))
        }
        return MHD_Result.YES
    }
    let request = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()

    // Body chunks: keep up to the limit. A chunked body has no announced size: past the limit
    // the rest is read and dropped, and the 413 answers the end of the body, because a client
    // still sending reads no answer: if the server closed the connection under it, it would
    // see a broken pipe (the old MHD_NO did exactly that) and retry the whole upload. Past
    // `discardLimit` the 413 is queued at once and libmicrohttpd closes the connection after it.
    if uploadSize.pointee > 0 {
        let size = uploadSize.pointee
        uploadSize.pointee = 0
        if request.discarded > 0 || request.body.count + size > request.limit {
            request.discarded += size
            request.body = []
            guard request.discarded > RequestState.discardLimit else { return MHD_Result.YES }
            var oversize = makeRequest(connection, methodText, path, [], server.configuration.trustedProxies)
            oversize.bodyExceededLimit = true
            return server.answer(connection, server.pipeline.respond(to: oversize, startedAt: request.startedAt))
        } else if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                request.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
            }
        }
        return MHD_Result.YES
    }

    // Last call: the whole request is here (or a suspended long-poll was resumed).
    var complete = makeRequest(connection, methodText, path, request.body, server.configuration.trustedProxies)
    complete.bodyExceededLimit = request.discarded > 0
    // The events route may be held open (Action.events); HEAD is answered as any route.
    if server.streams != nil, methodText == "GET", case .found(let route, _) = request.match, route.action == .events {
        return server.answerEvents(connection, request, complete)
    }
    if let answer = request.parked.take() { return server.answer(connection, answer()) }
    complete.match = request.match
    let client = HTTPConnection(connection), parked = request.parked, registry = server.suspended
    let response = server.pipeline.respond(
        to: complete, startedAt: request.startedAt, suspend: { parked.suspend(client, in: registry) },
        done: { response in parked.resume(response) })
    guard let response else { return MHD_Result.YES }
    return server.answer(connection, response)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, state, _ in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if let connection { server.headDeadline.answered(focus_connection_fd(connection)) }
    if let state, let existing = state.pointee {
        let request = Unmanaged<RequestState>.fromOpaque(existing).takeRetainedValue()
        // A stream whose socket a writer took over lives on; anything else waiting ends here.
        if let client = request.live, !client.adopted {
            client.finish()
            server.streams?.unregister(client)
        }
        state.pointee = nil
        server.inFlight.subtract(1, ordering: .sequentiallyConsistent)
    }
}

/// A request header's first value, by a name known at compile time: its bytes are passed as
/// they lie in the binary, NUL-terminated, where a String argument is copied into a C string
/// first on every call.
func header(_ connection: OpaquePointer, _ name: StaticString) -> String? {
    name.withUTF8Buffer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { name in
            MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, name.baseAddress)
        }
    }.map { String(cString: $0) }
}

/// The headers the pipeline reads, by the lower-case name it asks for them by.
private let requestHeaders: [(key: String, name: StaticString)] = [
    ("authorization", "authorization"), ("content-type", "content-type"), ("if-none-match", "if-none-match"),
    ("x-request-id", "x-request-id"), ("user-agent", "user-agent"), ("accept", "accept"),
    ("last-event-id", "last-event-id"), ("idempotency-key", "idempotency-key"), ("accept-language", "accept-language"),
    ("x-client-version", "x-client-version"), ("cookie", "cookie"), ("host", "host"), ("origin", "origin"),
]

/// The first value of each of `requestHeaders` the request has, in one walk over its headers: a
/// lookup by name walks them all and compares each name, and asking for thirteen names made
/// thirteen walks per request. The list is lent to the C callback by its address (no box to
/// allocate).
private func readHeaders(_ connection: OpaquePointer) -> HeaderFields {
    var headers = HeaderFields()
    withUnsafeMutablePointer(to: &headers) { headers in
        _ = MHD_get_connection_values(
            connection, MHD_ValueKind.HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let length = strlen(key)
                // The names' bytes as they lie in the binary: no C string made per comparison.
                for (name, known) in requestHeaders where known.utf8CodeUnitCount == length {
                    let same = known.utf8Start.withMemoryRebound(to: CChar.self, capacity: length) {
                        strncasecmp(key, $0, length) == 0
                    }
                    guard same else { continue }
                    let headers = cls.assumingMemoryBound(to: HeaderFields.self)
                    // The first line of a repeated header, as a lookup by name gives it.
                    if headers.pointee[name] == nil { headers.pointee[name] = value.map { String(cString: $0) } ?? "" }
                    break
                }
                return MHD_Result.YES
            }, headers)
    }
    return headers
}

/// Reads the headers the pipeline uses, every query argument and the client's address.
private func makeRequest(
    _ connection: OpaquePointer, _ method: String, _ path: String, _ body: [UInt8], _ trusted: TrustedProxies
) -> Request {
    let headers = readHeaders(connection)
    var query: [String: String] = [:]
    // Most requests have no query: no box to allocate and no walk for them.
    if MHD_get_connection_values(connection, MHD_ValueKind.GET_ARGUMENT_KIND, nil, nil) > 0 {
        final class Box { var query: [String: String] = [:] }
        let box = Box()
        _ = MHD_get_connection_values(
            connection, MHD_ValueKind.GET_ARGUMENT_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
                box.query[String(cString: key)] = value.map { String(cString: $0) } ?? ""
                return MHD_Result.YES
            }, Unmanaged.passUnretained(box).toOpaque())
        query = box.query
    }
    var request = Request(method: method, path: path, query: query, lowerCasedHeaders: headers, body: body)
    guard let address = connectionAddress(connection) else { return request }
    let name = address.description
    request.connectionAddress = name
    request.clientAddress = name
    // Forwarding headers are read only from a trusted proxy (HTTP/ForwardedFor.swift).
    if trusted.contains(address) {
        let (forwarded, xForwardedFor) = forwardingHeaders(connection)
        request.clientAddress =
            ForwardedFor.client(connection: address, forwarded: forwarded, xForwardedFor: xForwardedFor, trusted: trusted)
            .description
    }
    return request
}

/// The address libmicrohttpd holds for the connection: its peer, or the client a PROXY
/// protocol header named (Daemon.add).
private func connectionAddress(_ connection: OpaquePointer) -> IPAddress? {
    focus_client_sockaddr(connection).flatMap { IPAddress(socketAddress: $0) }
}

/// Every line of Forwarded and of X-Forwarded-For, in the order received (a lookup by name
/// would give the first line only).
private func forwardingHeaders(_ connection: OpaquePointer) -> (forwarded: [String], xForwardedFor: [String]) {
    final class Box {
        var forwarded: [String] = []
        var xForwardedFor: [String] = []
    }
    let box = Box()
    _ = MHD_get_connection_values(
        connection, MHD_ValueKind.HEADER_KIND,
        { cls, _, key, value in
            guard let cls, let key, let value else { return MHD_Result.YES }
            let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
            if strcasecmp(key, "forwarded") == 0 {
                box.forwarded.append(String(cString: value))
            } else if strcasecmp(key, "x-forwarded-for") == 0 {
                box.xForwardedFor.append(String(cString: value))
            }
            return MHD_Result.YES
        }, Unmanaged.passUnretained(box).toOpaque())
    return (box.forwarded, box.xForwardedFor)
}

/// Accepted sockets and their closing, for the head deadline and the connection counts.
private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let socket = focus_connection_fd(connection)
    let address = connectionAddress(connection)?.description
    switch code {
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED:
        server.headDeadline.opened(socket)
        if let address { server.addresses.started(address) }
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_CLOSED:
        server.headDeadline.closed(socket)
        if let address { server.addresses.closed(address) }
    default: break
    }
}

/// Refuses a new connection at once when CONNECTION_LIMIT are open (see HeadDeadline), or when
/// its address holds PER_IP_CONNECTION_LIMIT (AddressLimit; a trusted proxy's never does).
/// libmicrohttpd calls it for the connections it accepts and for those the PROXY listener
/// hands it, with the client's address. Streams held by the writers are connections too,
/// though libmicrohttpd no longer counts them: they count toward CONNECTION_LIMIT, and toward
/// PER_IP_CONNECTION_LIMIT apart from the address's connections libmicrohttpd holds.
private let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let streams = server.writers?.open ?? 0
    guard server.headDeadline.open.load(ordering: .relaxed) + streams < server.configuration.connectionLimit else {
        return MHD_Result.NO
    }
    // Another family (none is served) passes uncounted, as libmicrohttpd's own count let it.
    guard let address, let client = IPAddress(socketAddress: address) else { return MHD_Result.YES }
    let name = client.description
    let exempt = server.configuration.trustedProxies.contains(client)
    if !exempt, streams > 0, let writers = server.writers, writers.open(from: name) >= server.configuration.perIPConnectionLimit {
        return MHD_Result.NO
    }
    return server.addresses.admit(name, exempt: exempt) ? MHD_Result.YES : MHD_Result.NO
}

/// The body as libmicrohttpd's response, without the copy RESPMEM_MUST_COPY made of every
/// answer (a cached catalog is tens of KiB): the array's storage is lent, kept alive by a box
/// that libmicrohttpd releases through the free callback when it destroys the response (after
/// the last byte is sent). The array is never mutated while the box holds it, so its storage
/// stays where it is. An empty body (a 304, a 204) lends nothing and allocates nothing.
private func responseHandle(_ body: [UInt8]) -> OpaquePointer? {
    guard !body.isEmpty else {
        return MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
    }
    let lent = Unmanaged.passRetained(LentBody(body))
    let handle = lent.takeUnretainedValue().bytes.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer_with_free_callback_cls(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
            { box in box.map { Unmanaged<LentBody>.fromOpaque($0).release() } }, lent.toOpaque())
    }
    if handle == nil { lent.release() }
    return handle
}

/// A response body while libmicrohttpd sends it (responseHandle).
private final class LentBody {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// Queues `response` on the connection; `close`: with `Connection: close` (libmicrohttpd 0.9.75
/// closes the connection after an answer that says so).
func send(_ connection: OpaquePointer, _ response: Response, close: Bool = false) -> MHD_Result {
    guard let handle = responseHandle(response.body) else { return MHD_Result.NO }
    defer { MHD_destroy_response(handle) }
    // withCString lends a short string's bytes from the stack and a long one's own storage; a
    // String passed as a C pointer argument was copied into a new array, twice a header.
    for (name, value) in response.headers {
        name.withCString { name in value.withCString { value in _ = MHD_add_response_header(handle, name, value) } }
    }
    if close { MHD_add_response_header(handle, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), handle)
}

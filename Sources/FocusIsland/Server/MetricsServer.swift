// MetricsServer: GET /metrics (Prometheus text format) on its own listener, METRICS_HOST and
// METRICS_PORT (127.0.0.1 and off by default), never on the public port: request counts by
// route, latency histograms and pool gauges are for operators, not for every client.
// One libmicrohttpd thread; a scrape reads the lock-free counters and the pool's gauges.
import CMicroHTTPD
import Glibc
import Synchronization

public final class MetricsServer: Sendable {
    let pipeline: Pipeline
    let streams: EventStreams?
    let listener: Listener?
    let host: String
    let requestedPort: UInt16
    private let daemon: Mutex<DaemonHandle?> = Mutex(nil)
    private let boundPort = Atomic<UInt16>(0)

    public init(pipeline: Pipeline, host: String, port: UInt16, streams: EventStreams? = nil, listener: Listener? = nil) {
        self.pipeline = pipeline
        self.streams = streams
        self.listener = listener
        self.host = host
        self.requestedPort = port
    }

    /// The port actually bound (METRICS_PORT=0 asks the kernel for one).
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// The exposition text as a scrape sees it.
    public func text() -> String {
        pipeline.metrics.render(
            pool: pipeline.pool.usage(), openStreams: streams?.count ?? 0,
            listenerReconnects: max(0, (listener?.connections ?? 0) - 1))
    }

    public func start() throws(ServerError) {
        let address = try resolve(host, requestedPort)
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_ERROR_LOG.rawValue)
        if address.family == AF_INET6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var storage = address.storage
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { sockaddrPointer in
            let options: [CVarArg] = [
                MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(10),
                MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(16),
                MHD_OPTION.SOCK_ADDR.rawValue, OpaquePointer(sockaddrPointer),
                MHD_OPTION.END.rawValue,
            ]
            return withVaList(options) { arguments in
                MHD_start_daemon_va(flags, requestedPort, nil, nil, metricsHandler, context, arguments)
            }
        }
        guard let started else {
            throw ServerError(description: "could not listen for metrics on \(host):\(requestedPort)")
        }
        daemon.withLock { $0 = DaemonHandle(pointer: started) }
        boundPort.store(focus_daemon_port(started), ordering: .releasing)
    }

    public func stop() {
        let handle: DaemonHandle? = daemon.withLock { value in
            let current = value
            value = nil
            return current
        }
        if let running = handle?.pointer { MHD_stop_daemon(running) }
    }
}

private let metricsHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, state in
    guard let cls, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    // Any body is read and dropped; the answer waits for the end of the request.
    if state.pointee == nil {
        state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return MHD_Result.YES
    }
    if uploadSize.pointee > 0 {
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    let server = Unmanaged<MetricsServer>.fromOpaque(cls).takeUnretainedValue()
    let found = String(cString: url) == "/metrics"
    let allowed = ["GET", "HEAD"].contains(String(cString: method))
    let status = !found ? 404 : allowed ? 200 : 405
    let body = Array((status == 200 ? server.text() : status == 404 ? "not found\n" : "method not allowed\n").utf8)
    let handle = body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
    }
    guard let handle else { return MHD_Result.NO }
    defer { MHD_destroy_response(handle) }
    MHD_add_response_header(handle, "Content-Type", status == 200 ? "text/plain; version=0.0.4" : "text/plain")
    for (name, value) in Response.everyAnswer { MHD_add_response_header(handle, name, value) }
    if status == 405 { MHD_add_response_header(handle, "Allow", "GET, HEAD") }
    return MHD_queue_response(connection, UInt32(status), handle)
}

// MetricsServer: GET /metrics (Prometheus text format) on its own listener, METRICS_HOST and
// METRICS_PORT (127.0.0.1 and off by default), never on the public port: request counts by
// route, latency histograms and pool gauges are for operators, not for every client.
// One libmicrohttpd thread (a Daemon, MHD/Daemon.swift, as the public port's); a scrape reads
// the lock-free counters and the pool's gauges.

public final class MetricsServer: Sendable {
    let pipeline: Pipeline
    let streams: EventStreams?
    let listener: Listener?
    let host: String
    let requestedPort: UInt16
    private let daemon: Daemon

    public init(pipeline: Pipeline, host: String, port: UInt16, streams: EventStreams? = nil, listener: Listener? = nil) {
        self.pipeline = pipeline
        self.streams = streams
        self.listener = listener
        self.host = host
        self.requestedPort = port
        daemon = Daemon(purpose: "metrics") { method, path in
            Self.answer(method: method, path: path) {
                Self.text(pipeline: pipeline, streams: streams, listener: listener)
            }
        }
    }

    /// The port actually bound (METRICS_PORT=0 asks the kernel for one).
    public var port: UInt16 { daemon.port }

    /// The exposition text as a scrape sees it.
    public func text() -> String { Self.text(pipeline: pipeline, streams: streams, listener: listener) }

    static func text(pipeline: Pipeline, streams: EventStreams?, listener: Listener?) -> String {
        pipeline.metrics.render(
            pool: pipeline.pool.usage(), openStreams: streams?.count ?? 0,
            listenerReconnects: max(0, (listener?.connections ?? 0) - 1))
    }

    /// 200 with the text for GET and HEAD /metrics, 405 for another method, 404 elsewhere.
    static func answer(method: String, path: String, text: () -> String) -> Response {
        let found = path == "/metrics"
        let allowed = ["GET", "HEAD"].contains(method)
        let status = !found ? 404 : allowed ? 200 : 405
        let body = status == 200 ? text() : status == 404 ? "not found\n" : "method not allowed\n"
        var response = Response(status: status, body: Array(body.utf8))
        response.setHeader("Content-Type", status == 200 ? "text/plain; version=0.0.4" : "text/plain")
        if status == 405 { response.setHeader("Allow", "GET, HEAD") }
        return response
    }

    public func start() throws(ServerError) {
        try daemon.start(host: host, port: requestedPort, limits: Daemon.Limits(idleTimeout: 10, connectionLimit: 16))
    }

    public func stop() { daemon.stop() }
}

// Application: the one place the server is put together. From a Configuration it builds the
// pools (the primary and, with READ_DATABASE_URL, a replica's), the route table and pipeline,
// the shared cache, the waiting clients and their listener, the scheduled jobs' runner, the
// HTTP server and, with METRICS_PORT, the metrics server; `start` and `stop` run them in order.
// `focus-island serve`, the tests' server (Tests/FocusIslandTests/TestEnvironment.swift) and
// the client journeys' server (Tests/ClientJourneyTests/JourneyServer.swift) all build this,
// so a test runs what production runs; they differ only in their Configuration.
import Synchronization

public final class Application: Sendable {
    public let configuration: Configuration
    public let pipeline: Pipeline
    public let assets: AssetStore
    /// Shared answers (catalog, tips) kept while the listener listens (Live/SharedCache.swift).
    public let cache: SharedCache
    /// Clients waiting for events: SSE streams and long-polls (Live/EventStreams.swift).
    public let streams: EventStreams
    /// The one LISTEN connection that rings them (Live/Listener.swift).
    public let listener: Listener
    /// The scheduled jobs, on a connection of their own (Live/JobRunner.swift).
    public let jobs: JobRunner
    public let server: HTTPServer
    /// GET /metrics on METRICS_HOST:METRICS_PORT; nil when METRICS_PORT is not set.
    public let metricsServer: MetricsServer?
    private let logger: Logger
    /// Watches the answers of requests' statements (DB_ASYNC=on); nil: workers wait for them.
    private let poller: DatabasePoller?
    /// The pools (the primary's and the replica's), whose idle sessions a stop ends.
    private let pools: [ConnectionPool]
    private let started = Atomic<Bool>(false)

    /// Builds every part; nothing listens or connects yet (pools open connections lazily).
    /// Throws when the OpenAPI document cannot be read.
    public init(configuration: Configuration, logger: Logger) throws(ConfigurationError) {
        self.configuration = configuration
        self.logger = logger
        // DB_ASYNC=on: one thread watches both pools' answers (Database/DatabasePoller.swift).
        let poller = configuration.asyncDatabase ? DatabasePoller() : nil
        self.poller = poller
        let answerWait = UInt64(configuration.answerWait * 1000)  // DB_ANSWER_WAIT, ms → µs
        let pool = ConnectionPool(
            conninfo: configuration.databaseURL, capacity: configuration.poolSize,
            checkoutTimeout: configuration.poolTimeout, namedStatements: configuration.preparedStatements,
            poller: poller, answerWait: answerWait)
        // READ_DATABASE_URL: a second pool, on a streaming replica, for routes marked reads: .replica.
        let readPool = configuration.readDatabaseURL.map { url in
            ConnectionPool(
                conninfo: url, capacity: configuration.poolSize, checkoutTimeout: configuration.poolTimeout,
                namedStatements: configuration.preparedStatements, poller: poller, answerWait: answerWait)
        }
        pools = [pool] + (readPool.map { [$0] } ?? [])
        assets = AssetStore(directory: configuration.assetDirectory)
        let openAPI = try StaticDocument(path: configuration.openAPIFile, contentType: "application/json")
        let web = try WebSite(directory: configuration.webDirectory)
        // Sign in with Apple and Google: their ID tokens' verifier (Social/), keys fetched on use.
        let identities: IdentityVerifier
        do {
            identities = try IdentityVerifier(settings: configuration.social, logger: logger)
        } catch {
            throw ConfigurationError(variable: "APPLE_SIGN_IN_KEY_FILE", reason: error.description)
        }
        // Live events: one LISTEN connection rings the waiting clients and keeps the shared
        // cache fresh. The listener connects straight to PostgreSQL (LISTEN_DATABASE_URL) even
        // when the pool goes through PgBouncer.
        let cache = SharedCache()
        let streams = EventStreams(heartbeat: min(15, max(1, configuration.idleTimeout / 2)))
        let listener = Listener(
            conninfo: configuration.listenDatabaseURL, streams: streams, cache: cache, logger: logger,
            doorbell: configuration.eventsDoorbell)
        // A stop's phase: the public port drains by it, /ready tells the balancer.
        let drain = Drain()
        // Requests that write poke the listener, which rings their events' streams at once.
        let pipeline = Pipeline(
            router: Router(routes: Routes.all), pool: pool, defaultBodyLimit: configuration.bodyLimit,
            logger: logger, assets: assets, readPool: readPool, openAPI: openAPI, cache: cache, listener: listener,
            web: web, identities: identities, drain: drain)
        self.pipeline = pipeline
        self.cache = cache
        self.streams = streams
        self.listener = listener
        // The scheduled jobs: a connection of their own, straight to PostgreSQL as the
        // listener's (explicit transactions and statement_timeout per step).
        jobs = JobRunner(conninfo: configuration.listenDatabaseURL, logger: logger)
        server = HTTPServer(pipeline: pipeline, configuration: configuration, streams: streams, drain: drain)
        metricsServer = configuration.metricsPort.map { [pipeline] port in
            MetricsServer(
                pipeline: pipeline, host: configuration.metricsHost, port: port, streams: streams, listener: listener)
        }
    }

    /// Listens on the public port, publishes the assets' base URL (unless `publishAssets` is
    /// false), starts the listener and the heartbeat ticker, then the metrics listener.
    /// A second call does nothing.
    public func start(publishAssets: Bool = true) throws(ServerError) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try server.start()
        // Item answers carry absolute URLs: SQL joins this prefix to the hashed names. A database
        // not reachable now keeps the URLs the last start published (logged, not fatal). Before the
        // listener starts, so the shared catalog cache is filled with the published URLs.
        if publishAssets {
            do {
                try assets.publish(conninfo: configuration.databaseURL, baseURL: assetBaseURL)
                logger.info("assets: \(assets.files.count) files at \(assetBaseURL)")
            } catch {
                logger.error("assets: not published: \(error)")
            }
        }
        listener.start()
        jobs.start()
        streams.startTicker()
        do {
            try metricsServer?.start()
        } catch {
            // Nothing was served yet: no drain to wait for.
            server.stop()
            listener.stop()
            jobs.stop()
            poller?.stop()
            throw error
        }
    }

    /// The prefix of every image_url and sound_url, at the port actually bound.
    public var assetBaseURL: String { configuration.assetBaseURL(port: server.port) }

    /// Graceful stop (docs/operations.md, "Stopping and rolling deploys"): the public port
    /// drains first (MHD/GracefulStop.swift: DRAIN_DELAY, the listener's close, requests in
    /// flight for up to STOP_GRACE, streams told to reconnect), meanwhile the listener still
    /// rings streams and keeps the shared cache fresh for the requests in flight; then the
    /// listener, the database poller (nothing is suspended any more), the pools' idle sessions,
    /// and last the metrics listener, which shows the drain until the end.
    @discardableResult
    public func stop() -> DrainReport {
        let report = server.stop(delay: configuration.drainDelay, grace: configuration.stopGrace)
        listener.stop()
        jobs.stop()
        poller?.stop()
        for pool in pools { pool.closeIdle() }
        metricsServer?.stop()
        return report
    }
}

// focus-island: `serve` (default), `migrate`, `seed`. Configuration comes from the environment.
import FocusIsland
import Foundation
import Glibc

let arguments = CommandLine.arguments.dropFirst()
let command = arguments.first ?? "serve"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let configuration: Configuration
do {
    configuration = try Configuration(environment: ProcessInfo.processInfo.environment)
} catch {
    fail(error.description)
}
let logger = Logger(format: configuration.logFormat)

switch command {
case "serve":
    // Block the stop signals before any thread starts, so every worker inherits the mask and
    // only this thread receives them, through sigwait.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGTERM)
    sigaddset(&stopSignals, SIGINT)
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

    // A database host that does not answer must not hold a worker for minutes: libpq gives up
    // connecting after PGCONNECT_TIMEOUT seconds (3 unless the environment says otherwise).
    setenv("PGCONNECT_TIMEOUT", "3", 0)
    let pool = ConnectionPool(
        conninfo: configuration.databaseURL, capacity: configuration.poolSize,
        checkoutTimeout: configuration.poolTimeout,
        namedStatements: configuration.preparedStatements)
    let assets = AssetStore(directory: configuration.assetDirectory)
    // READ_DATABASE_URL: a second pool, on a streaming replica, for routes marked reads: .replica.
    let readPool = configuration.readDatabaseURL.map { url in
        ConnectionPool(
            conninfo: url, capacity: configuration.poolSize, checkoutTimeout: configuration.poolTimeout,
            namedStatements: configuration.preparedStatements)
    }
    var pipeline = Pipeline(
        router: Router(routes: Routes.all), pool: pool,
        defaultBodyLimit: configuration.bodyLimit, logger: logger, assets: assets, readPool: readPool)
    do {
        pipeline.openAPI = try StaticDocument(path: configuration.openAPIFile, contentType: "application/json")
    } catch {
        fail(error.description)
    }
    // Live events: one LISTEN connection rings the waiting clients and keeps the shared cache fresh.
    let cache = SharedCache()
    pipeline.cache = cache
    let streams = EventStreams(heartbeat: min(15, max(1, configuration.idleTimeout / 2)))
    let listener = Listener(conninfo: configuration.listenDatabaseURL, streams: streams, cache: cache, logger: logger)
    let server = HTTPServer(pipeline: pipeline, configuration: configuration, streams: streams)
    do {
        try server.start()
    } catch {
        fail("serve: \(error.description)")
    }
    // Item answers carry absolute URLs: SQL joins this prefix to the hashed names. A database
    // not reachable now keeps the URLs the last start published (logged, not fatal). Before the
    // listener starts, so the shared catalog cache is filled with the published URLs.
    do {
        try assets.publish(conninfo: configuration.databaseURL, baseURL: configuration.assetBaseURL(port: server.port))
        logger.info("assets: \(assets.files.count) files at \(configuration.assetBaseURL(port: server.port))")
    } catch {
        logger.error("assets: not published: \(error)")
    }
    listener.start()
    streams.startTicker()
    logger.info(
        "listening on \(configuration.host):\(server.port) with \(configuration.httpThreads) threads, \(configuration.poolSize) connections"
            + (readPool == nil ? "" : ", and as many to the read replica")
    )
    var metricsServer: MetricsServer?
    if let port = configuration.metricsPort {
        let metrics = MetricsServer(
            pipeline: pipeline, host: configuration.metricsHost, port: port, streams: streams, listener: listener)
        do {
            try metrics.start()
        } catch {
            fail("serve: \(error.description)")
        }
        logger.info("metrics on \(configuration.metricsHost):\(metrics.port)/metrics")
        metricsServer = metrics
    }
    var received: Int32 = 0
    sigwait(&stopSignals, &received)
    logger.info("signal \(received): finishing requests in flight")
    listener.stop()
    server.stop()
    metricsServer?.stop()
    logger.info("stopped")

case "migrate", "seed":
    do {
        let migrator = Migrator(conninfo: configuration.migrationDatabaseURL, directory: configuration.sqlDirectory)
        if command == "migrate" {
            logger.info(try migrator.migrate().description)
        } else {
            logger.info("seeded from \(try migrator.seed()) files")
        }
    } catch {
        fail("\(command): \(error)")
    }

default:
    fail("usage: focus-island [serve|migrate|seed]")
}

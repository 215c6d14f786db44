// Configuration: every setting comes from the environment, with a default that works locally.
// A bad value stops start-up with one line that names the variable (ConfigurationError).

/// EVENTS_DOORBELL (Live/Listener.swift).
public enum Doorbell: String, Sendable {
    /// A request's write rings its events' streams at once, on this server and (by one NOTIFY
    /// after the commit) on the others.
    case notify
    /// At once on this server only: the others hear at their next tick (one server).
    case local
    /// Every server hears at its next tick (10 ms) only.
    case off
}

public enum LogFormat: String, Sendable {
    case text, json, off
}

public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let variable: String
    public let reason: String
    public var description: String { "configuration: \(variable) \(reason)" }
}

public struct Configuration: Sendable, Equatable {
    /// libpq connection string or URL the server logs in with (role focus_api).
    public var databaseURL: String
    /// Connection used by `migrate` and `seed` (role focus_owner); defaults to databaseURL.
    public var migrationDatabaseURL: String
    /// The listener's own connection for LISTEN (never through a transaction-pooling
    /// PgBouncer, which cannot carry LISTEN); defaults to databaseURL.
    public var listenDatabaseURL: String
    public var host: String
    public var port: UInt16
    /// Database connections held by the server; requests beyond this wait for a free one.
    public var poolSize: Int
    /// Seconds a request waits for a free database connection before it answers 503.
    public var poolTimeout: Double
    /// Named prepared statements (DB_PREPARED_STATEMENTS=on); off behind PgBouncer 1.18 in
    /// transaction pooling, which cannot keep them.
    public var preparedStatements: Bool
    /// libmicrohttpd worker threads (epoll thread pool).
    public var httpThreads: Int
    /// DB_ASYNC=on (the default): a request's statement runs while its HTTP worker serves other
    /// connections (Database/DatabasePoller.swift); off: the worker waits for it.
    public var asyncDatabase = true
    /// DB_ANSWER_WAIT (ms, with DB_ASYNC=on): how long the worker that sent a request's statement
    /// waits for a free connection and the answer itself before it suspends the request and
    /// leaves it to the poller; 0: it never waits (docs/performance.md, "The answer wait"; 5 ms
    /// since 2026-12-07: "The pool waited for within the answer wait").
    public var answerWait = 5.0
    /// EVENTS_DOORBELL: how the listener hears of events written by this server's requests
    /// (Live/Listener.swift): `notify` (the default) rings at once and tells the other servers,
    /// `local` rings at once and tells no one (one server), `off` rings at the 10 ms tick only.
    public var eventsDoorbell = Doorbell.notify
    /// Default request body limit in bytes; a route may allow more (see Routes.swift).
    public var bodyLimit: Int
    /// Seconds an idle connection is kept before libmicrohttpd closes it.
    public var idleTimeout: Int
    /// Total concurrent HTTP connections, and per client IP.
    public var connectionLimit: Int
    public var perIPConnectionLimit: Int
    /// Seconds from accepting a connection to its complete first request head (HeadDeadline).
    public var headTimeout: Int
    /// TRUSTED_PROXIES: the balancers whose X-Forwarded-For or Forwarded names the client
    /// (HTTP/ForwardedFor.swift), which may connect to PROXY_PROTOCOL_PORT, and whose own
    /// connections are not capped per address. Empty (the default): no one.
    public var trustedProxies = TrustedProxies.none
    /// PROXY_PROTOCOL_PORT: a second listener on HOST whose connections start with a PROXY
    /// protocol v2 header (Server/ProxyListener.swift); nil (the default): none.
    public var proxyProtocolPort: UInt16? = nil
    public var logFormat: LogFormat
    /// Folder holding sql/ (migrations, api, report, seed).
    public var sqlDirectory: String
    /// Folder served under /assets/ (ASSET_DIR, default `assets`).
    public var assetDirectory = "assets"
    /// Where phones load assets from (ASSET_BASE_URL, ending in `/`), e.g. a CDN; nil means
    /// this server's own /assets/ (see `assetBaseURL(port:)`).
    public var assetBase: String?

    /// The prefix of every image_url and sound_url: ASSET_BASE_URL, or this server's /assets/
    /// at the address it listens on (a wildcard host is written as localhost).
    public func assetBaseURL(port: UInt16) -> String {
        if let assetBase { return assetBase }
        let name = ["0.0.0.0", "::", ""].contains(host) ? "localhost" : host.contains(":") ? "[\(host)]" : host
        return "http://\(name):\(port)/assets/"
    }
    /// A streaming replica for the routes that read shared data (Route.reads); nil: none.
    public var readDatabaseURL: String? = nil
    /// GET /metrics listens here, apart from the public port; nil port (the default): off.
    public var metricsHost = "127.0.0.1"
    public var metricsPort: UInt16? = nil
    /// The pages' templates and static files (WEB_DIR, else web/ beside sql/).
    public var webDirectory = "web"
    /// The OpenAPI document served at GET /openapi.json: OPENAPI_FILE, else docs/openapi.json
    /// beside SQL_DIR (the repository's layout), read once at start.
    public var openAPIFile = "docs/openapi.json"
    /// DRAIN_DELAY: seconds between a stop signal and the listener's close, while /ready answers
    /// 503 and the balancer's health check takes the instance out (its interval × fall, plus
    /// one): requests it sends meanwhile are served rather than refused. 0 (the default): at
    /// once, since a server alone has no balancer to wait for and haproxy retries a refused
    /// connection on another server; set it behind a balancer that does not (docs/operations.md).
    public var drainDelay = 0.0
    /// STOP_GRACE: seconds requests in flight have to finish once the listener closed; past
    /// them a request still waiting for the database is answered 503 (docs/operations.md).
    public var stopGrace = 10.0
    /// Sign in with Apple and Google: client ids, key sets, Apple's endpoints (SocialSettings).
    public var social = SocialSettings()

    public static let defaults = Configuration(
        databaseURL: "postgresql:///focus_island",
        migrationDatabaseURL: "postgresql:///focus_island",
        host: "127.0.0.1", port: 8080, poolSize: 8, poolTimeout: 5, preparedStatements: true, httpThreads: 8,
        bodyLimit: 64 * 1024, idleTimeout: 30, connectionLimit: 1000, perIPConnectionLimit: 64,
        headTimeout: 10, logFormat: .text, sqlDirectory: "sql")

    public init(
        databaseURL: String, migrationDatabaseURL: String, host: String, port: UInt16,
        poolSize: Int, poolTimeout: Double, preparedStatements: Bool, httpThreads: Int, bodyLimit: Int, idleTimeout: Int,
        connectionLimit: Int, perIPConnectionLimit: Int, headTimeout: Int, logFormat: LogFormat,
        sqlDirectory: String
    ) {
        self.databaseURL = databaseURL
        self.migrationDatabaseURL = migrationDatabaseURL
        self.listenDatabaseURL = databaseURL
        self.host = host
        self.port = port
        self.poolSize = poolSize
        self.poolTimeout = poolTimeout
        self.preparedStatements = preparedStatements
        self.httpThreads = httpThreads
        self.bodyLimit = bodyLimit
        self.idleTimeout = idleTimeout
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.headTimeout = headTimeout
        self.logFormat = logFormat
        self.sqlDirectory = sqlDirectory
    }

    /// Reads the environment; unknown variables are ignored, malformed ones throw.
    public init(environment env: [String: String]) throws(ConfigurationError) {
        let d = Configuration.defaults
        databaseURL = env["DATABASE_URL"] ?? d.databaseURL
        migrationDatabaseURL = env["MIGRATION_DATABASE_URL"] ?? databaseURL
        listenDatabaseURL = env["LISTEN_DATABASE_URL"] ?? databaseURL
        host = env["HOST"] ?? d.host
        // 0 asks the kernel for any free port; the log line and HTTPServer.port say which.
        port = UInt16(try Self.integer(env, "PORT", d.port, in: 0...65535))
        poolSize = try Self.integer(env, "DB_POOL_SIZE", d.poolSize, in: 1...1000)
        poolTimeout = try Self.seconds(env, "DB_POOL_TIMEOUT", d.poolTimeout, in: 0.001...600)
        switch env["DB_PREPARED_STATEMENTS"] {
        case nil: preparedStatements = d.preparedStatements
        case "on": preparedStatements = true
        case "off": preparedStatements = false
        case let raw?: throw ConfigurationError(variable: "DB_PREPARED_STATEMENTS", reason: "must be on or off, got '\(raw)'")
        }
        httpThreads = try Self.integer(env, "HTTP_THREADS", d.httpThreads, in: 1...1000)
        switch env["DB_ASYNC"] {
        case nil: asyncDatabase = d.asyncDatabase
        case "on": asyncDatabase = true
        case "off": asyncDatabase = false
        case let raw?: throw ConfigurationError(variable: "DB_ASYNC", reason: "must be on or off, got '\(raw)'")
        }
        answerWait = try Self.number(env, "DB_ANSWER_WAIT", d.answerWait, in: 0...100, unit: "milliseconds")
        switch env["EVENTS_DOORBELL"].map({ Doorbell(rawValue: $0) }) {
        case nil: eventsDoorbell = d.eventsDoorbell
        case let doorbell??: eventsDoorbell = doorbell
        case .some(nil):
            throw ConfigurationError(
                variable: "EVENTS_DOORBELL", reason: "must be notify, local or off, got '\(env["EVENTS_DOORBELL"] ?? "")'")
        }
        bodyLimit = try Self.integer(env, "BODY_LIMIT", d.bodyLimit, in: 1...(64 << 20))
        idleTimeout = try Self.integer(env, "IDLE_TIMEOUT", d.idleTimeout, in: 1...3600)
        connectionLimit = try Self.integer(env, "CONNECTION_LIMIT", d.connectionLimit, in: 1...100_000)
        perIPConnectionLimit = try Self.integer(
            env, "PER_IP_CONNECTION_LIMIT", d.perIPConnectionLimit,
            in: 1...100_000)
        headTimeout = try Self.integer(env, "HEAD_TIMEOUT", d.headTimeout, in: 1...3600)
        do {
            trustedProxies = try TrustedProxies(parsing: env["TRUSTED_PROXIES"] ?? "")
        } catch {
            throw ConfigurationError(
                variable: "TRUSTED_PROXIES",
                reason: "must be addresses or networks separated by commas (10.0.0.0/8, 2001:db8::/32, 192.0.2.7), "
                    + "with no bits set past a network's prefix, got '\(error.entry)'")
        }
        if let raw = env["PROXY_PROTOCOL_PORT"], !raw.isEmpty {
            let proxyPort = UInt16(try Self.integer(env, "PROXY_PROTOCOL_PORT", 0, in: 0...65535))
            if proxyPort != 0 && proxyPort == port {
                throw ConfigurationError(variable: "PROXY_PROTOCOL_PORT", reason: "must differ from PORT (\(port))")
            }
            if trustedProxies.isEmpty {
                throw ConfigurationError(
                    variable: "PROXY_PROTOCOL_PORT", reason: "needs TRUSTED_PROXIES: the balancers allowed to connect to it")
            }
            proxyProtocolPort = proxyPort
        }
        sqlDirectory = env["SQL_DIR"] ?? d.sqlDirectory
        assetDirectory = env["ASSET_DIR"] ?? d.assetDirectory
        if let raw = env["ASSET_BASE_URL"] {
            let base = raw.hasSuffix("/") ? raw : raw + "/"
            guard base.hasPrefix("http://") || base.hasPrefix("https://"), !base.contains(where: \.isWhitespace) else {
                throw ConfigurationError(variable: "ASSET_BASE_URL", reason: "must be an http(s) URL, got '\(raw)'")
            }
            assetBase = base
        }
        readDatabaseURL = env["READ_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        metricsHost = env["METRICS_HOST"] ?? d.metricsHost
        if env["METRICS_PORT"] != nil {
            metricsPort = UInt16(try Self.integer(env, "METRICS_PORT", 0, in: 0...65535))
        }
        drainDelay = try Self.seconds(env, "DRAIN_DELAY", d.drainDelay, in: 0...3600)
        stopGrace = try Self.seconds(env, "STOP_GRACE", d.stopGrace, in: 0...3600)
        social = try SocialSettings(environment: env)
        openAPIFile = env["OPENAPI_FILE"] ?? sqlDirectory + "/../docs/openapi.json"
        webDirectory = env["WEB_DIR"] ?? sqlDirectory + "/../web"
        if let raw = env["LOG_FORMAT"] {
            guard let format = LogFormat(rawValue: raw) else {
                throw ConfigurationError(variable: "LOG_FORMAT", reason: "must be text, json or off, got '\(raw)'")
            }
            logFormat = format
        } else {
            logFormat = d.logFormat
        }
        if let raw = env[SealKey.variable], raw.count < SealKey.minimumLength {
            throw ConfigurationError(variable: SealKey.variable, reason: "must be at least \(SealKey.minimumLength) characters")
        }
        if host.isEmpty { throw ConfigurationError(variable: "HOST", reason: "must not be empty") }
        if databaseURL.isEmpty { throw ConfigurationError(variable: "DATABASE_URL", reason: "must not be empty") }
    }

    private static func seconds(
        _ env: [String: String], _ name: String, _ fallback: Double,
        in range: ClosedRange<Double>
    ) throws(ConfigurationError) -> Double {
        try number(env, name, fallback, in: range, unit: "seconds")
    }

    private static func number(
        _ env: [String: String], _ name: String, _ fallback: Double,
        in range: ClosedRange<Double>, unit: String
    ) throws(ConfigurationError) -> Double {
        guard let raw = env[name] else { return fallback }
        guard let value = Double(raw), range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                reason: "must be a number of \(unit) from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return value
    }

    private static func integer<T: BinaryInteger>(
        _ env: [String: String], _ name: String, _ fallback: T,
        in range: ClosedRange<Int>
    ) throws(ConfigurationError) -> Int {
        guard let raw = env[name] else { return Int(fallback) }
        guard let value = Int(raw), range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                reason: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return value
    }
}

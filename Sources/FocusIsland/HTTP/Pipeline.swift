// Pipeline: the request path in stages, one job each, callable without sockets:
//   route → check body → check credentials → call SQL (one round trip) → conditional → respond.
// It holds no business rule: SQL decides every answer except HTTP-level ones (404/405/413/415).

public struct Pipeline: Sendable {
    public let router: Router
    public let pool: ConnectionPool
    public let defaultBodyLimit: Int
    public let logger: Logger
    /// The files under /assets/ (read once at start).
    public let assets: AssetStore
    static let assetsPrefix = "/assets/"
    /// The pool of a streaming replica for routes that read shared data (READ_DATABASE_URL);
    /// nil sends every route to `pool`.
    public let readPool: ConnectionPool?
    public let metrics: Metrics
    /// The contract served at GET /openapi.json (docs/openapi.json, read at start); nil: 404.
    public var openAPI: StaticDocument?
    /// Shared answers kept in memory (Live/SharedCache.swift); nil: every request asks SQL.
    public var cache: SharedCache?
    /// The pages' templates and static files (web/, Web/WebPages.swift); empty: no pages.
    public var web: WebSite = .empty
    /// How often a statement that hit a serialization failure or deadlock is tried in all.
    static let attempts = 3

    public init(
        router: Router, pool: ConnectionPool, defaultBodyLimit: Int, logger: Logger, assets: AssetStore = .empty,
        readPool: ConnectionPool? = nil, metrics: Metrics? = nil
    ) {
        self.router = router
        self.pool = pool
        self.defaultBodyLimit = defaultBodyLimit
        self.logger = logger
        self.assets = assets
        self.readPool = readPool
        self.metrics = metrics ?? Metrics(routes: router.routes)
    }

    /// The body limit for a route match, known from the request head before the body is read.
    public func bodyLimit(_ match: RouteMatch) -> Int {
        if case .found(let route, _) = match { return route.bodyLimit ?? defaultBodyLimit }
        return defaultBodyLimit
    }

    /// Answers one request and writes its log line (unless `log` is false: a waiting
    /// long-poll asks again on each wake and logs once, when it answers).
    public func respond(to request: Request, startedAt: UInt64 = monotonicMicroseconds(), log: Bool = true) -> Response {
        let requestID = Self.requestID(from: request.header("x-request-id"))
        var template = "-"
        var response: Response
        do {
            response = try answer(request, template: &template)
        } catch {
            response = error.response
        }
        response.setHeader("X-Request-Id", requestID)
        // Answers are computed per user and may carry tokens (sign-up, login, reset) or a whole
        // account (the export): no cache keeps one unless the answer says how (an ETag's
        // no-cache, an asset's immutable, the contract's max-age).
        if response.header("Cache-Control") == nil { response.setHeader("Cache-Control", "no-store") }
        if log { logRequest(request, template: template, status: response.status, startedAt: startedAt, requestID: requestID) }
        return response
    }

    /// The request's log line and its metrics (counted once, when it is answered).
    func logRequest(_ request: Request, template: String, status: Int, startedAt: UInt64, requestID: String) {
        let microseconds = Int(monotonicMicroseconds() - startedAt)
        metrics.record(method: request.method, route: template, status: status, microseconds: microseconds)
        logger.log([
            "method": .string(request.method), "route": .string(template),
            "status": .int(status), "us": .int(microseconds),
            "request_id": .string(requestID),
        ])
    }

    private func answer(_ request: Request, template: inout String) throws(Problem) -> Response {
        // The web pages (/account/…, /moderation…, /web/…), outside the route table too.
        if let response = answerWeb(request, template: &template) { return response }
        // Static files, outside the route table (which maps routes to SQL functions one to one).
        if request.path.hasPrefix(Self.assetsPrefix) {
            template = Self.assetsPrefix + "{name}"
            guard request.method == "GET" || request.method == "HEAD" else {
                throw Problem(405, "method_not_allowed", "\(request.method) is not allowed here.", allow: "GET, HEAD")
            }
            return assets.response(name: String(request.path.dropFirst(Self.assetsPrefix.count)))
        }
        let (route, parameters) = try findRoute(request)
        template = route.template
        switch route.action {
        case .health:
            return .json(200, #"{"status":"ok"}"#)
        case .ready:
            return ready()
        case .openAPI:
            guard let openAPI else { throw Problem(404, "not_found", "There is nothing at \(request.path).") }
            return openAPI.response(ifNoneMatch: request.header("if-none-match"))
        case .sql:
            try checkBody(request, for: route)
            let token = request.bearerToken
            if route.access == .bearer && token == nil {
                throw Problem(401, "unauthorized", "Sign in: this needs an Authorization: Bearer token.")
            }
            let arguments = JSONText.object(Self.parameters(request, path: parameters))
            let body = route.body == .none ? [] : [bodyText(request, route)]
            let pool = readsReplica(route, request) ? readPool ?? pool : pool
            return response(for: try cachedCall(route, [token, arguments] + body, pool: pool), route: route, request: request)
        }
    }

    /// Whether this request may be answered by the replica (Route.reads).
    private func readsReplica(_ route: Route, _ request: Request) -> Bool {
        switch route.reads {
        case .primary: false
        case .replica: true
        case .replicaWhen(let name, let value): request.query[name] == value
        }
    }

    private func findRoute(_ request: Request) throws(Problem) -> (Route, [String: String]) {
        // The server matched the route already, from the head (for the body limit): not twice.
        switch request.match ?? router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return (route, parameters)
        case .methodNotAllowed(let allowed):
            throw Problem(
                405, "method_not_allowed", "\(request.method) is not allowed here.",
                allow: allowed.joined(separator: ", "))
        case .notFound:
            throw Problem(404, "not_found", "There is nothing at \(request.path).")
        }
    }

    private func checkBody(_ request: Request, for route: Route) throws(Problem) {
        if request.bodyExceededLimit || request.body.count > route.bodyLimit ?? defaultBodyLimit {
            throw Problem(413, "body_too_large", "The body is larger than this route accepts.")
        }
        let mediaType = request.header("content-type")?.split(separator: ";").first
            .map { $0.trimming(" \t").lowercased() }
        switch route.body {
        case .none:
            return
        case .json:
            guard mediaType == "application/json" else {
                throw Problem(415, "unsupported_media_type", "Send the body as Content-Type: application/json.")
            }
            // libpq passes text parameters as C strings: NUL or invalid UTF-8 cannot be JSON text.
            guard !request.body.contains(0), String(validating: request.body, as: UTF8.self) != nil else {
                throw Problem(400, "invalid_json", "The body is not valid UTF-8 JSON.")
            }
        case .image:
            guard mediaType == "image/png" || mediaType == "image/jpeg" else {
                throw Problem(415, "unsupported_image", "Send a PNG or JPEG image.")
            }
        }
    }

    /// The body as the statement's third parameter: JSON text, or hex for binary images.
    private func bodyText(_ request: Request, _ route: Route) -> String {
        switch route.body {
        case .image: return hex(request.body)
        default: return String(decoding: request.body, as: UTF8.self)
        }
    }

    /// A shared answer from memory while the cache holds it; else `call`, keeping a 200 for
    /// next time. The key is everything the function reads: these public functions ignore the token.
    private func cachedCall(_ route: Route, _ parameters: [String?], pool: ConnectionPool) throws(Problem) -> Reply {
        guard let cache, case .sql(let function) = route.action, SharedCache.functions.contains(function) else {
            return try call(route, parameters, pool: pool)
        }
        let key = function + "\u{0}" + (parameters[1] ?? "") + "\u{0}" + (parameters.count > 2 ? parameters[2] ?? "" : "")
        switch cache.lookup(key) {
        case .hit(let reply):
            return reply
        case .off:
            return try call(route, parameters, pool: pool)
        case .miss(let generation):
            let reply = try call(route, parameters, pool: pool)
            if reply.code == nil && (reply.status ?? route.status) == 200 { cache.store(key, reply, generation: generation) }
            return reply
        }
    }

    /// One round trip; serialization failures and deadlocks rolled back, so they are retried.
    func call(_ route: Route, _ parameters: [String?], pool: ConnectionPool) throws(Problem) -> Reply {
        guard case .sql(let function) = route.action, let statement = route.statement else {
            throw Problem(500, "internal_error", "Something went wrong on our side.")
        }
        var attempt = 1
        while true {
            do throws(DatabaseError) {
                let rows = try pool.withConnection { connection throws(DatabaseError) in
                    try connection.executePrepared(route.statementName, statement, parameters)
                }
                guard let row = rows.first, let reply = Reply(row: row, kind: route.response) else {
                    throw DatabaseError(sqlState: "XX000", message: "\(function) returned no reply row")
                }
                return reply
            } catch let error where error.isRetryable && attempt < Self.attempts {
                attempt += 1
            } catch {
                let problem = Problem(error)
                if problem.status >= 500 { logger.error("\(route.template): \(error)") }
                throw problem
            }
        }
    }

    /// Turns the reply into a response, answering If-None-Match with 304 when the ETag matches.
    private func response(for reply: Reply, route: Route, request: Request) -> Response {
        let status = reply.status ?? route.status
        if let code = reply.code {
            var response = Problem(status, code, reply.message ?? code, extensions: reply.extensions).response
            if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
            return response
        }
        var response = Response(status: status)
        if let body = reply.body, status != 204 {
            response.body = body
            response.setHeader("Content-Type", reply.contentType ?? "application/octet-stream")
        }
        if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
        if let etag = reply.etag {
            let tag = "\"" + etag + "\""
            response.setHeader("ETag", tag)
            response.setHeader("Cache-Control", "no-cache")
            if Self.matches(ifNoneMatch: request.header("if-none-match"), tag: tag) {
                response.status = 304
                response.body = []
                response.headers.removeAll { $0.name == "Content-Type" }
            }
        }
        return response
    }

    private func ready() -> Response {
        do {
            let rows = try pool.withConnection { connection throws(DatabaseError) in
                try connection.executePrepared("api.ready", "select api.ready()::text", [])
            }
            guard let body = rows.first?.first ?? nil else { throw DatabaseError(sqlState: "XX000", message: "no row") }
            return .json(200, body)
        } catch {
            logger.error("/ready: \(error)")
            return Problem(503, "not_ready", "The database is not reachable or not migrated.").response
        }
    }

    /// The statement's params: query, then path parameters, then `client_ip`, which only the
    /// server sets (a client's own `?client_ip=` is dropped, so it cannot pose as another).
    static func parameters(_ request: Request, path: [String: String]) -> [String: String] {
        var merged = request.query.merging(path) { _, path in path }
        // Set by the server only (a client's own ?client_ip= or ?user_agent= is replaced): the
        // address login throttling counts by, and the label of a token's device (GET /me/tokens).
        merged["client_ip"] = request.clientAddress
        merged["user_agent"] = request.header("user-agent")
        // The Idempotency-Key header, and only the header: api.idempotent validates and keeps it.
        merged["idempotency_key"] = request.header("idempotency-key")
        // With a key only: the seal key of stored answers that carry secrets (SealKey.swift).
        if merged["idempotency_key"] != nil { merged["seal_key"] = SealKey.value }
        return merged
    }

    /// If-None-Match (RFC 9110 §13.1.2): weak comparison, a list of tags, or "*".
    static func matches(ifNoneMatch: String?, tag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let value = candidate.trimming(" \t")
            return value == "*" || value == tag || value == "W/" + tag
        }
    }

    /// The client's request id if it is short and printable, else a new random one.
    static func requestID(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count),
            header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f })
        {
            return header
        }
        return String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt32.random(in: .min ... .max), radix: 16)
    }
}

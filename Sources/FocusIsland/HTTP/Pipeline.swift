// Pipeline: the request path in stages, one job each, callable without sockets:
//   route → admit (release controls) → check body → check credentials → call SQL (one round
//   trip) → conditional → respond.
// It holds no business rule: SQL decides every answer except HTTP-level ones (404/405/413/415)
// and admission by the release controls SQL serves (426/503, Live/ReleaseControls.swift).

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
    /// X-Request-Id for answers whose request brought none (RequestIDs.swift).
    public let requestIDs: RequestIDs
    /// The contract served at GET /openapi.json (docs/openapi.json, read at start); nil: 404.
    public var openAPI: StaticDocument?
    /// Shared answers kept in memory (Live/SharedCache.swift); nil: every request asks SQL.
    public var cache: SharedCache?
    /// Told after each statement that may have written (Live/Listener.swift, `committed`), so
    /// that the streams hear of its events at once; nil: they hear at the listener's next tick.
    public var listener: Listener?
    /// The pages' templates and static files (web/, Web/WebPages.swift); empty: no pages.
    public var web: WebSite = .empty
    /// The server's stop (Server/Drain.swift): once it begins, /ready answers 503 `draining`;
    /// nil: no server stops under this pipeline.
    public var drain: Drain?
    /// How often a statement that hit a serialization failure or deadlock is tried in all.
    static let attempts = 3

    public init(
        router: Router, pool: ConnectionPool, defaultBodyLimit: Int, logger: Logger, assets: AssetStore = .empty,
        readPool: ConnectionPool? = nil, metrics: Metrics? = nil, requestIDs: RequestIDs = RequestIDs()
    ) {
        self.router = router
        self.pool = pool
        self.defaultBodyLimit = defaultBodyLimit
        self.logger = logger
        self.assets = assets
        self.readPool = readPool
        self.metrics = metrics ?? Metrics(routes: router.routes)
        self.requestIDs = requestIDs
    }

    /// The body limit for a route match, known from the request head before the body is read.
    public func bodyLimit(_ match: RouteMatch) -> Int {
        if case .found(let route, _) = match { return route.bodyLimit ?? defaultBodyLimit }
        return defaultBodyLimit
    }

    /// Answers one request and writes its log line (unless `log` is false: a waiting
    /// long-poll asks again on each wake and logs once, when it answers).
    public func respond(to request: Request, startedAt: UInt64 = monotonicMicroseconds(), log: Bool = true) -> Response {
        var template = "-"
        var response: Response
        do {
            switch try answer(request, template: &template) {
            case .answered(let answered): response = answered
            case .statement(let statement):
                response = statement.response(
                    to: try call(statement.route, statement.parameters, pool: statement.pool, keyed: statement.keyed))
            }
        } catch {
            response = error.response
        }
        return finish(response, request, template: template, startedAt: startedAt, log: log)
    }

    /// Answers like `respond`, without waiting on this thread for the request's statement when
    /// its pool is asynchronous (DB_ASYNC=on) beyond the pool's answer wait (DB_ANSWER_WAIT): an
    /// answer in by then is returned at once; else `suspend` runs, nil is returned, and `done`
    /// gets the response later on the database poller's thread, as a function that makes it:
    /// the poller only hands the reply over, and the thread that sends the response (the resumed
    /// connection's worker) makes its body, headers and log line, so the one poller thread does
    /// not do that work for every worker in turn.
    /// Everything else (memory, problems, the rare lookups of the release controls and the
    /// offered languages) is answered at once, as by `respond`.
    func respond(
        to request: Request, startedAt: UInt64, suspend: @escaping @Sendable () -> Void,
        done: @escaping @Sendable (@escaping @Sendable () -> Response) -> Void
    ) -> Response? {
        var template = "-"
        let response: Response
        do {
            switch try answer(request, template: &template) {
            case .answered(let answered):
                response = answered
            case .statement(let statement) where statement.pool.isAsynchronous:
                let handoff = Handoff(suspend: suspend)
                submit(statement, attempt: 1, leaving: handoff.leave) { [self, template] outcome in
                    let make: @Sendable () -> Response = {
                        let response: Response
                        switch outcome {
                        case .success(let reply): response = statement.response(to: reply)
                        case .failure(let problem): response = problem.response
                        }
                        return finish(response, request, template: template, startedAt: startedAt, log: true)
                    }
                    if !handoff.keep(make) { done(make) }
                }
                return handoff.answered?()
            case .statement(let statement):
                response = statement.response(
                    to: try call(statement.route, statement.parameters, pool: statement.pool, keyed: statement.keyed))
            }
        } catch {
            response = error.response
        }
        return finish(response, request, template: template, startedAt: startedAt, log: true)
    }

    /// The headers every answer gets, and the log line.
    private func finish(_ response: Response, _ request: Request, template: String, startedAt: UInt64, log: Bool) -> Response {
        var response = response
        let requestID = requestIDs.id(from: request.header("x-request-id"))
        response.setHeader("X-Request-Id", requestID)
        // Answers are computed per user and may carry tokens (sign-up, login, reset) or a whole
        // account (the export): no cache keeps one unless the answer says how (an ETag's
        // no-cache, an asset's immutable, the contract's max-age).
        if response.header("Cache-Control") == nil { response.setHeader("Cache-Control", "no-store") }
        if log { logRequest(request, template: template, response: response, startedAt: startedAt, requestID: requestID) }
        return response
    }

    /// What `answer` leaves to do: nothing, or the route's one statement and what to make of
    /// its reply.
    private enum Step {
        case answered(Response)
        case statement(Statement)
    }

    /// A route's statement, ready to run, and the rest of its answer: the shared cache's entry
    /// to fill and the language headers.
    private struct Statement: Sendable {
        let pipeline: Pipeline
        let route: Route
        let parameters: [String?]
        let pool: ConnectionPool
        let request: Request
        /// The shared cache's key and generation when the reply may be kept (a miss).
        let cacheEntry: (key: String, generation: UInt64)?
        let language: String?

        /// The request has an Idempotency-Key: it runs the route's keyed statement (Route.swift).
        var keyed: Bool { request.header("idempotency-key") != nil }

        func response(to reply: Reply) -> Response {
            pipeline.listener?.committed(route)
            if let cache = pipeline.cache, let (key, generation) = cacheEntry, reply.code == nil,
                (reply.status ?? route.status) == 200
            {
                // Served to everyone: no request's user goes with it (the cached functions sign
                // no one in anyway).
                var shared = reply
                shared.user = nil
                cache.store(key, shared, generation: generation)
            }
            var response = pipeline.response(for: reply, route: route, request: request)
            if let language {
                // On every answer of the route, problems and 304s too: a cache must key them by it.
                response.setHeader("Vary", "Accept-Language")
                if response.status < 300 || response.status == 304 { response.setHeader("Content-Language", language) }
            }
            return response
        }
    }

    /// The request's log line and its metrics (counted once, when it is answered).
    func logRequest(_ request: Request, template: String, response: Response, startedAt: UInt64, requestID: String) {
        logRequest(
            request, template: template, status: response.status, code: response.code, user: response.user,
            startedAt: startedAt, requestID: requestID)
    }

    /// The same for an answer the server sent itself (an event stream's head): its status and user.
    func logRequest(
        _ request: Request, template: String, status: Int, code: String? = nil, user: String?, startedAt: UInt64,
        requestID: String
    ) {
        let microseconds = Int(monotonicMicroseconds() - startedAt)
        metrics.record(method: request.method, route: template, status: status, microseconds: microseconds)
        logger.request(
            id: requestID, method: request.method, route: template, status: status, microseconds: microseconds,
            code: code, user: user, client: request.clientAddress)
    }

    private func answer(_ request: Request, template: inout String) throws(Problem) -> Step {
        // The web pages (/account/…, /moderation…, /web/…), outside the route table too.
        if let response = answerWeb(request, template: &template) { return .answered(response) }
        // Static files, outside the route table (which maps routes to SQL functions one to one).
        if request.path.hasPrefix(Self.assetsPrefix) {
            template = Self.assetsPrefix + "{name}"
            guard request.method == "GET" || request.method == "HEAD" else {
                throw Problem(405, "method_not_allowed", "\(request.method) is not allowed here.", allow: "GET, HEAD")
            }
            return .answered(assets.response(name: String(request.path.dropFirst(Self.assetsPrefix.count))))
        }
        let (route, parameters) = try findRoute(request)
        template = route.template
        try admit(request, route)
        try checkBody(request, for: route)
        switch route.action {
        case .health:
            return .answered(.json(200, #"{"status":"ok"}"#))
        case .ready:
            // A balancer's health check takes a stopping instance out while it finishes its work.
            if drain?.draining == true { return .answered(Problem(503, "draining", "The server is stopping.").response) }
            return .answered(ready())
        case .openAPI:
            guard let openAPI else { throw Problem(404, "not_found", "There is nothing at \(request.path).") }
            return .answered(openAPI.response(ifNoneMatch: request.header("if-none-match")))
        case .sql:
            let token = request.bearerToken
            if route.access == .bearer && token == nil {
                throw Problem(401, "unauthorized", "Sign in: this needs an Authorization: Bearer token.")
            }
            var merged = Self.parameters(request, path: parameters)
            // Set by the server only, for a localized route (a client's own ?language= is dropped).
            merged["language"] = route.localized ? try language(request) : nil
            let arguments = JSONText.object(merged)
            let body = route.body == .none ? [] : [bodyText(request, route)]
            let pool = readsReplica(route, request) ? readPool ?? pool : pool
            let parameters = [token, arguments] + body
            var cacheEntry: (key: String, generation: UInt64)? = nil
            switch cacheLookup(route, parameters, shared: merged) {
            case .hit(let reply):
                return .answered(statement(route, parameters, pool, request, nil, merged["language"]).response(to: reply))
            case .miss(let key, let generation): cacheEntry = (key, generation)
            case .off: break
            }
            return .statement(statement(route, parameters, pool, request, cacheEntry, merged["language"]))
        }
    }

    private func statement(
        _ route: Route, _ parameters: [String?], _ pool: ConnectionPool, _ request: Request,
        _ cacheEntry: (key: String, generation: UInt64)?, _ language: String?
    ) -> Statement {
        Statement(
            pipeline: self, route: route, parameters: parameters, pool: pool, request: request, cacheEntry: cacheEntry,
            language: language)
    }

    /// The language of a localized answer: Accept-Language negotiated against the languages the
    /// database offers (AcceptLanguage.swift), which the shared cache keeps while it listens.
    private func language(_ request: Request) throws(Problem) -> String {
        let header = request.header("accept-language")
        guard header != nil else { return AcceptLanguage.fallback }
        switch cache?.lookupLanguages() ?? .off {
        case .hit(let offered):
            return AcceptLanguage.negotiate(header, offered: offered)
        case .off:
            return AcceptLanguage.negotiate(header, offered: try offeredLanguages())
        case .miss(let generation):
            let offered = try offeredLanguages()
            cache?.storeLanguages(offered, generation: generation)
            return AcceptLanguage.negotiate(header, offered: offered)
        }
    }

    /// api.languages_offered(): English first, then each offered tag.
    private func offeredLanguages() throws(Problem) -> [String] {
        do throws(DatabaseError) {
            let rows = try pool.withConnection { connection throws(DatabaseError) in
                try connection.executePrepared("api.languages_offered", "select api.languages_offered()", [])
            }
            guard let text = rows.first?.first ?? nil else {
                throw DatabaseError(sqlState: "XX000", message: "api.languages_offered returned no row")
            }
            return text.split(separator: ",").map(String.init)
        } catch {
            let problem = Problem(error)
            if problem.status >= 500 { logger.error("api.languages_offered: \(error)") }
            throw problem
        }
    }

    /// The release controls (Live/ReleaseControls.swift): 426 for an app below its platform's
    /// minimum, 503 during maintenance, 400 for a malformed X-Client-Version; routes marked
    /// `.always` and the account pages under /account/ pass whatever the header says.
    private func admit(_ request: Request, _ route: Route) throws(Problem) {
        guard route.admission == .controlled, !request.path.hasPrefix("/account/") else { return }
        let client = try ClientVersion(header: request.header("x-client-version"))
        try releaseControls().admit(client)
    }

    /// The controls from memory, or read from SQL (api.config_get) and kept until the next
    /// config.changed; without a listener, read on every request.
    private func releaseControls() throws(Problem) -> ReleaseControls {
        let lookup = cache?.lookupControls() ?? .off
        if case .hit(let controls) = lookup { return controls }
        let reply = try call(Routes.configGet, [nil, "{}"], pool: pool)
        guard reply.code == nil, let body = reply.body, let controls = ReleaseControls(configBody: body) else {
            logger.error("/config: api.config_get gave no release controls")
            throw Problem(500, "internal_error", "Something went wrong on our side.")
        }
        if case .miss(let generation) = lookup { cache?.storeControls(controls, generation: generation) }
        return controls
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

    /// The body's form, for every route of the table (the events endpoint calls it too): its
    /// size; none on a route that takes none (`Route.body`, the one source of which routes take
    /// one, as docs/openapi.json's requestBody); JSON text without a repeated key on a JSON route.
    func checkBody(_ request: Request, for route: Route) throws(Problem) {
        if request.bodyExceededLimit || request.body.count > route.bodyLimit ?? defaultBodyLimit {
            throw Problem(413, "body_too_large", "The body is larger than this route accepts.")
        }
        let mediaType = request.header("content-type")?.split(separator: ";").first
            .map { $0.trimming(" \t").lowercased() }
        switch route.body {
        case .none:
            // Never ignored: a client sending fields here believes they count, and one that does
            // (`{"coins": 999}` to an accept) must learn that they do not. A body that says
            // nothing (none, `{}`) is no body, whatever its Content-Type (docs/versioning.md).
            guard JSONKeys.saysNothing(request.body) else {
                throw Problem(
                    400, "body_not_allowed", "\(route.method) \(route.template) takes no body; send none.")
            }
        case .json, .optionalJSON:
            if route.body == .optionalJSON && request.body.isEmpty { return }
            guard mediaType == "application/json" else {
                throw Problem(415, "unsupported_media_type", "Send the body as Content-Type: application/json.")
            }
            // libpq passes text parameters as C strings: NUL or invalid UTF-8 cannot be JSON text.
            guard !request.body.contains(0), String(validating: request.body, as: UTF8.self) != nil else {
                throw Problem(400, "invalid_json", "The body is not valid UTF-8 JSON.")
            }
            // jsonb keeps the last of two equal keys silently; other readers keep the first.
            if let key = JSONKeys.firstDuplicate(in: request.body) {
                let shown = key.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(key.unicodeScalars.prefix(100))) + "…" : key
                throw Problem(
                    400, "duplicate_key", "The key \(JSONText.quote(shown)) appears twice in one object; send each key once.",
                    extensions: JSONText.object(["key": shown]))
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
        case .optionalJSON where request.body.isEmpty: return "{}"
        default: return String(decoding: request.body, as: UTF8.self)
        }
    }

    private enum CacheLookup {
        case hit(Reply)
        case miss(key: String, generation: UInt64)
        case off
    }

    /// A shared answer from memory while the cache holds it; else the entry a 200 fills for
    /// next time. The key is everything the function reads: the query, path and language of
    /// `shared` and the body. These public functions ignore the token and the per-client values the
    /// server adds (address, user agent, key), so one entry serves every client.
    private func cacheLookup(_ route: Route, _ parameters: [String?], shared: [String: String]) -> CacheLookup {
        guard let cache, case .sql(let function) = route.action, SharedCache.functions.contains(function) else {
            return .off
        }
        let keyed = JSONText.object(shared.filter { !Self.perClientParameters.contains($0.key) })
        let key = function + "\u{0}" + keyed + "\u{0}" + (parameters.count > 2 ? parameters[2] ?? "" : "")
        switch cache.lookup(key) {
        case .hit(let reply): return .hit(reply)
        case .off: return .off
        case .miss(let generation): return .miss(key: key, generation: generation)
        }
    }

    /// `call` without a waiting thread: the reply (or the problem) goes to `done` on the
    /// database poller's thread; a serialization failure or deadlock is sent again, as by `call`.
    private func submit(
        _ statement: Statement, attempt: Int, leaving: @escaping @Sendable () -> Void,
        done: @escaping @Sendable (Result<Reply, Problem>) -> Void
    ) {
        let route = statement.route
        guard case .sql(let function) = route.action, let (name, text) = route.statement(keyed: statement.keyed) else {
            return done(.failure(Problem(500, "internal_error", "Something went wrong on our side.")))
        }
        statement.pool.submit(name, text, statement.parameters, leaving: leaving) { [self] outcome in
            switch outcome {
            case .success(let rows):
                if let row = rows.first, let reply = Reply(row: row, kind: route.response) {
                    return done(.success(reply))
                }
                let error = DatabaseError(sqlState: "XX000", message: "\(function) returned no reply row")
                logger.error("\(route.template): \(error)")
                done(.failure(Problem(error)))
            case .failure(let error) where error.isRetryable && attempt < Self.attempts:
                submit(statement, attempt: attempt + 1, leaving: leaving, done: done)
            case .failure(let error):
                let problem = Problem(error)
                if problem.status >= 500 { logger.error("\(route.template): \(error)") }
                done(.failure(problem))
            }
        }
    }

    /// One round trip; serialization failures and deadlocks rolled back, so they are retried.
    /// `keyed`: the request has an Idempotency-Key (Route.keyedStatement).
    func call(_ route: Route, _ parameters: [String?], pool: ConnectionPool, keyed: Bool = false) throws(Problem) -> Reply {
        guard case .sql(let function) = route.action, let (name, statement) = route.statement(keyed: keyed) else {
            throw Problem(500, "internal_error", "Something went wrong on our side.")
        }
        var attempt = 1
        while true {
            do throws(DatabaseError) {
                let rows = try pool.withConnection { connection throws(DatabaseError) in
                    try connection.executePrepared(name, statement, parameters)
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
            var problem = Problem(status, code, reply.message ?? code, extensions: reply.extensions)
            problem.user = reply.user
            var response = problem.response
            if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
            return response
        }
        var response = Response(status: status)
        response.user = reply.user
        if let body = reply.body, status != 204 {
            response.body = body
            response.setHeader("Content-Type", reply.contentType ?? "application/octet-stream")
        }
        if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
        if let etag = reply.etag {
            let tag = "\"" + etag + "\""
            response.setHeader("ETag", tag)
            // A signed-in person's own answer (/me, /friends…) may be kept by their own client
            // only, never by a shared cache; a public one (the catalog) by any.
            response.setHeader("Cache-Control", route.access == .bearer ? "private, no-cache" : "no-cache")
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

    /// What `parameters` adds per client; no shared (cached) answer depends on them.
    static let perClientParameters: Set<String> = ["client_ip", "user_agent", "idempotency_key", "seal_key"]

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
}

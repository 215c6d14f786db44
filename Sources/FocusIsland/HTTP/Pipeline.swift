// Pipeline: the request path composed of its stages, each a file with one job, callable
// without sockets. Every request passes one door, the router, and then its route's handler:
//   route (Router: 404/405)
//   → a file (Assets), a page (Web/WebAnswers.swift), or
//   → admission (Admission: 426/503) → the body's form (BodyCheck: 413/415/400)
//     → /health, /ready (Readiness), /openapi.json, or the route's statement (Statement):
//       credentials (Credentials: 401) → arguments (Arguments, IdempotencyKey, Language,
//       Identity: a social sign-in's ID token verified, 401/503)
//       → a shared answer (SharedAnswers) → the database call and its retries (StatementCall,
//       Database/StatementRetry.swift) → the reply as a response (ReplyResponse, Conditional)
//   → every answer's headers and its log line (Finish, RequestLog).
// It holds no business rule: SQL decides every answer except HTTP-level ones (404/405/413/415)
// and admission by the release controls SQL serves (426/503, Live/ReleaseControls.swift).

// A class, not a struct: a request passed it along half a dozen times (the server's field, the
// statement, the closure that finishes a suspended request), and each copy of a struct of some
// twenty references retained and released every one of them, a quarter of /me's retains
// (docs/performance.md, "The floor: libmicrohttpd and libpq alone"). All of it is set at init.
public final class Pipeline: Sendable {
    public let router: Router
    public let pool: ConnectionPool
    public let defaultBodyLimit: Int
    public let logger: Logger
    /// The files under /assets/ (read once at start).
    public let assets: AssetStore
    /// The pool of a streaming replica for routes that read shared data (READ_DATABASE_URL);
    /// nil sends every route to `pool`.
    public let readPool: ConnectionPool?
    public let metrics: Metrics
    /// X-Request-Id for answers whose request brought none (RequestIDs.swift).
    public let requestIDs: RequestIDs
    /// When a failed statement is sent again, blocking or not (Database/StatementRetry.swift).
    let retry = StatementRetry.statements
    /// The contract served at GET /openapi.json (docs/openapi.json, read at start); nil: 404.
    public let openAPI: StaticDocument?
    /// Shared answers kept in memory (Live/SharedCache.swift); nil: every request asks SQL.
    public let cache: SharedCache?
    /// Told after each statement that may have written (Live/Listener.swift, `committed`), so
    /// that the streams hear of its events at once; nil: they hear at the listener's next tick.
    public let listener: Listener?
    /// The pages' templates and static files (web/, Web/WebPages.swift); empty: no pages.
    public let web: WebSite
    /// The verifier of Apple and Google ID tokens (Social/IdentityVerifier.swift); nil: their
    /// routes answer 503 sign_in_provider_unavailable.
    public let identities: IdentityVerifier?
    /// The server's stop (Server/Drain.swift): once it begins, /ready answers 503 `draining`;
    /// nil: no server stops under this pipeline.
    public let drain: Drain?

    public init(
        router: Router, pool: ConnectionPool, defaultBodyLimit: Int, logger: Logger, assets: AssetStore = .empty,
        readPool: ConnectionPool? = nil, metrics: Metrics? = nil, requestIDs: RequestIDs = RequestIDs(),
        openAPI: StaticDocument? = nil, cache: SharedCache? = nil, listener: Listener? = nil, web: WebSite = .empty,
        identities: IdentityVerifier? = nil, drain: Drain? = nil
    ) {
        self.router = router
        self.pool = pool
        self.defaultBodyLimit = defaultBodyLimit
        self.logger = logger
        self.assets = assets
        self.readPool = readPool
        self.metrics = metrics ?? Metrics(routes: router.routes)
        self.requestIDs = requestIDs
        self.openAPI = openAPI
        self.cache = cache
        self.listener = listener
        self.web = web
        self.identities = identities
        self.drain = drain
    }

    /// The same pipeline (pools, metrics, request ids, everything else) with another shared
    /// cache: a test's own.
    public func with(cache: SharedCache?) -> Pipeline {
        Pipeline(
            router: router, pool: pool, defaultBodyLimit: defaultBodyLimit, logger: logger,
            assets: assets, readPool: readPool, metrics: metrics, requestIDs: requestIDs, openAPI: openAPI,
            cache: cache, listener: listener, web: web, identities: identities, drain: drain)
    }

    /// Answers one request and writes its log line (unless `log` is false: a waiting
    /// long-poll asks again on each wake and logs once, when it answers).
    public func respond(to request: Request, startedAt: UInt64 = monotonicMicroseconds(), log: Bool = true) -> Response {
        var template = "-"
        let response: Response
        do {
            switch try plan(request, template: &template) {
            case .answered(let answered): response = answered
            case .statement(let statement, let call): response = statement.response(to: try call.run())
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
            switch try plan(request, template: &template) {
            case .answered(let answered):
                response = answered
            case .statement(let statement, let call) where call.pool.isAsynchronous:
                let handoff = Handoff(suspend: suspend)
                // The statement holds the request: capturing it alone, not the request too,
                // saves a copy of the request's every string and array.
                call.submit(leaving: handoff.leave) { [self, template] outcome in
                    let make: @Sendable () -> Response = {
                        let response: Response
                        switch outcome {
                        case .success(let reply): response = statement.response(to: reply)
                        case .failure(let problem): response = problem.response
                        }
                        return self.finish(
                            response, statement.request, template: template, startedAt: startedAt, log: true)
                    }
                    if !handoff.keep(make) { done(make) }
                }
                return handoff.answered?()
            case .statement(let statement, let call):
                response = statement.response(to: try call.run())
            }
        } catch {
            response = error.response
        }
        return finish(response, request, template: template, startedAt: startedAt, log: true)
    }

    /// /health's answer, made once: each request shares its headers and body until Finish adds
    /// its own headers.
    private static let healthy = Response.json(200, #"{"status":"ok"}"#)

    /// What `plan` leaves to do: nothing, or the route's one statement and what to make of its
    /// reply.
    private enum Step {
        case answered(Response)
        case statement(Statement, StatementCall)
    }

    /// The stages up to the database: the route, then its handler's.
    private func plan(_ request: Request, template: inout String) throws(Problem) -> Step {
        let (route, parameters) = try router.route(request)
        template = route.template
        switch route.action {
        // Files and pages: no release controls (no app shows them), their own rules on bodies.
        case .asset: return .answered(assets.response(name: parameters["name"] ?? ""))
        case .webFile: return .answered(webFile(request, name: parameters["name"] ?? ""))
        case .page(let page): return .answered(answer(page, parameters, request))
        case .health:
            try gate(request, route)
            return .answered(Self.healthy)
        case .ready:
            try gate(request, route)
            return .answered(ready())
        case .openAPI:
            try gate(request, route)
            guard let openAPI else { throw Problem(404, "not_found", "There is nothing at \(request.path).") }
            return .answered(openAPI.response(ifNoneMatch: request.header("if-none-match")))
        case .events:
            return try statement(router.statementRoute(behind: route), parameters, request)
        case .sql:
            return try statement(route, parameters, request)
        }
    }

    /// The route's statement, past the gate; a shared answer from memory when the cache has it.
    private func statement(_ route: Route, _ parameters: [String: String], _ request: Request) throws(Problem) -> Step {
        try gate(request, route)
        let prepared = preparedKey(route, request, path: parameters)
        if let prepared, let answer = self.prepared(prepared, request) { return .answered(answer) }
        let statement = try Statement(route, parameters, request, pipeline: self, prepared: prepared)
        if let reply = statement.cached { return .answered(statement.response(to: reply)) }
        guard let call = statement.call else { throw Problem(500, "internal_error", "Something went wrong on our side.") }
        return .statement(statement, call)
    }

    /// What every API and service route passes before its handler: admission, then the body's form.
    private func gate(_ request: Request, _ route: Route) throws(Problem) {
        try admit(request, route)
        try checkBody(request, for: route)
    }
}

// Statement: a route's one statement made ready from the request (its token, arguments, body
// and pool, or the shared answer already in memory), and what its reply becomes: the listener
// told, the shared cache filled, the response with its language headers. Running it is
// StatementCall's.

// A class: the request's suspended answer captures it, and the plan passes it on; as a struct
// of some twenty references, every copy retained and released each of them (docs/performance.md,
// "The floor: libmicrohttpd and libpq alone").
final class Statement: Sendable {
    /// The two parts of the pipeline the reply needs.
    let listener: Listener?
    let cache: SharedCache?
    let route: Route
    let request: Request
    /// The call to make; nil when `cached` answers (its parameters are then never written).
    let call: StatementCall?
    /// The negotiated language of a localized route (Language.swift).
    let language: String?
    /// The shared answer the cache holds for exactly these arguments (a hit).
    let cached: Reply?
    /// The shared cache's key and generation when the reply may be kept (a miss).
    let cacheEntry: (key: String, generation: UInt64)?
    /// The key of the whole answer to keep with it (SharedAnswers.swift, `preparedKey`).
    let prepared: String?

    init(
        _ route: Route, _ path: [String: String], _ request: Request, pipeline: Pipeline, prepared: String? = nil
    ) throws(Problem) {
        let token = try Credentials.token(request, for: route)
        // Set by the server only, for a localized route (a client's own ?language= is dropped).
        let language = route.localized ? try pipeline.language(request) : nil
        self.listener = pipeline.listener
        self.cache = pipeline.cache
        self.route = route
        self.request = request
        self.language = language
        self.prepared = prepared
        let body = route.body == .none ? nil : BodyCheck.text(request, route)
        // The shared cache first, by what its function reads: a hit (the catalog, its 304s)
        // never writes the per-client parameters below, nor their JSON (SharedAnswers.swift).
        switch pipeline.cacheLookup(route, request, path: path, language: language, body: body) {
        case .hit(let reply):
            (cached, cacheEntry, call) = (reply, nil, nil)
            return
        case .miss(let key, let generation): (cached, cacheEntry) = (nil, (key, generation))
        case .off: (cached, cacheEntry) = (nil, nil)
        }
        var arguments = Pipeline.parameters(request, path: path)
        arguments["language"] = language
        // Set by the server only: what a social sign-in's ID token verified (Identity.swift).
        arguments["identity"] = try pipeline.identity(route, request)
        var parameters: [String?] = [token, JSONText.object(arguments)]
        if let body { parameters.append(body) }
        call = StatementCall(
            route: route, parameters: parameters, pool: pipeline.pool(for: route, request),
            keyed: IdempotencyKey.of(request) != nil, retry: pipeline.retry, logger: pipeline.logger)
    }

    func response(to reply: Reply) -> Response {
        listener?.committed(route)
        if let cache, let (key, generation) = cacheEntry, reply.code == nil,
            (reply.status ?? route.status) == 200
        {
            // Served to everyone: no request's user goes with it (the cached functions sign
            // no one in anyway).
            var shared = reply
            shared.user = nil
            cache.store(key, shared, generation: generation)
            if let prepared {
                let fresh = withLanguage(shared.response(route: route, ifNoneMatch: nil))
                if let tag = fresh.header("ETag") {
                    var notModified = fresh
                    notModified.revalidate(ifNoneMatch: tag, tag: tag)
                    cache.storePrepared(
                        prepared, .init(fresh: fresh, notModified: notModified, tag: tag), generation: generation)
                }
            }
        }
        return withLanguage(reply.response(route: route, ifNoneMatch: request.header("if-none-match")))
    }

    /// The response with the negotiated language's headers, for a localized route.
    private func withLanguage(_ response: Response) -> Response {
        guard let language else { return response }
        var response = response
        // On every answer of the route, problems and 304s too: a cache must key them by it.
        response.setHeader("Vary", "Accept-Language")
        if response.status < 300 || response.status == 304 { response.setHeader("Content-Language", language) }
        return response
    }
}

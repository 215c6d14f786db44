// SharedAnswers: the shared cache (Live/SharedCache.swift) at the door of the functions whose
// answers are the same for everyone: a hit answers from memory; a miss names the entry a 200
// fills for next time (Statement.response). A request that sends nothing these functions read
// but its Accept-Language (the catalog and the config as every phone asks for them) is answered
// before any of that, by the whole response kept for that header (`preparedKey`): a 304 then
// costs a lookup and the If-None-Match comparison, as the health check costs its answer made once
// (2026-12-07).

enum CacheLookup {
    case hit(Reply)
    case miss(key: String, generation: UInt64)
    case off
}

extension Pipeline {
    /// The key is everything the function reads: the query, the path, the language and the
    /// body. These public functions ignore the token and the per-client values the server adds
    /// (address, user agent, key), so one entry serves every client, and the key is made of
    /// those alone, before (and on a hit, instead of) the statement's parameters.
    func cacheLookup(
        _ route: Route, _ request: Request, path: [String: String], language: String?, body: String?
    ) -> CacheLookup {
        guard let cache, case .sql(let function) = route.action, SharedCache.functions.contains(function) else {
            return .off
        }
        var shared = path.isEmpty ? request.query : request.query.merging(path) { _, path in path }
        if !shared.isEmpty { for name in Self.perClientParameters { shared[name] = nil } }
        shared["language"] = language
        // One buffer, grown in place (not four strings joined).
        var key = ""
        key.reserveCapacity(function.utf8.count + 64 + (body?.utf8.count ?? 0))
        key += function
        key += "\u{0}"
        JSONText.appendObject(shared, to: &key)
        key += "\u{0}"
        key += body ?? ""
        switch cache.lookup(key) {
        case .hit(let reply): return .hit(reply)
        case .off: return .off
        case .miss(let generation): return .miss(key: key, generation: generation)
        }
    }

    /// The key of the whole answer kept for this request, or nil when it sends something the
    /// function reads besides Accept-Language (a query, a path parameter, a body), or the route
    /// is not answered from the cache.
    func preparedKey(_ route: Route, _ request: Request, path: [String: String]) -> String? {
        guard cache != nil, case .sql(let function) = route.action, SharedCache.functions.contains(function),
            path.isEmpty, request.query.isEmpty, request.body.isEmpty
        else { return nil }
        let language = request.header("accept-language") ?? ""
        var key = ""
        key.reserveCapacity(function.utf8.count + 1 + language.utf8.count)
        key += function
        key += "\u{0}"
        key += language
        return key
    }

    /// The kept answer for `key`: its 304 when If-None-Match holds its tag.
    func prepared(_ key: String, _ request: Request) -> Response? {
        guard let answer = cache?.lookupPrepared(key) else { return nil }
        return Self.matches(ifNoneMatch: request.header("if-none-match"), tag: answer.tag) ? answer.notModified : answer.fresh
    }
}

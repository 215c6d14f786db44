// SharedAnswers: the shared cache (Live/SharedCache.swift) at the door of the functions whose
// answers are the same for everyone: a hit answers from memory; a miss names the entry a 200
// fills for next time (Statement.response).

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
}

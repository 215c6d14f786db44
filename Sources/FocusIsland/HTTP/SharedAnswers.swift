// SharedAnswers: the shared cache (Live/SharedCache.swift) at the door of the functions whose
// answers are the same for everyone: a hit answers from memory; a miss names the entry a 200
// fills for next time (Statement.response).

enum CacheLookup {
    case hit(Reply)
    case miss(key: String, generation: UInt64)
    case off
}

extension Pipeline {
    /// The key is everything the function reads: the query, path and language of `shared` and
    /// the body. These public functions ignore the token and the per-client values the server
    /// adds (address, user agent, key), so one entry serves every client.
    func cacheLookup(_ route: Route, _ parameters: [String?], shared: [String: String]) -> CacheLookup {
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
}

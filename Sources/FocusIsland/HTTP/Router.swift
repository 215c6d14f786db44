// Router: finds the route for a method and path, or says why there is none
// (404 for an unknown path, 405 with the allowed methods for a known one).

public enum RouteMatch: Sendable {
    case found(Route, parameters: [String: String])
    case methodNotAllowed(allowed: [String])
    case notFound
}

public struct Router: Sendable {
    public let routes: [Route]
    /// The routes by their number of path segments, in table order: only those can match a path
    /// (Route.parameters), so a request is compared with a few routes, not with all of them.
    private let bySegmentCount: [Int: [Route]]

    public init(routes: [Route]) {
        self.routes = routes
        bySegmentCount = Dictionary(grouping: routes) { $0.segments.count }
    }

    public func match(method: String, path: String) -> RouteMatch {
        // Split on the "/" scalar, not on Characters: a combining mark right after a slash
        // (/friend-requests/%E1%A4%AA/accept) joins it into one Character, and the path no route.
        let parts = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map(Substring.init)
        // "/a/b" splits to ["", "a", "b"]; an empty part anywhere else ("//", trailing "/") is no route.
        guard path.hasPrefix("/"), !parts.contains(where: \.isEmpty) || path == "/" else { return .notFound }
        let segments = Array(parts.filter { !$0.isEmpty })
        let wanted = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for route in bySegmentCount[segments.count] ?? [] {
            guard let parameters = route.parameters(for: segments) else { continue }
            if route.method == wanted { return .found(route, parameters: parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}

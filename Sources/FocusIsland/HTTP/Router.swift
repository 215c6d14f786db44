// Router: the one door. Finds the route for a method and path in the table (Routes.all: the
// service routes, the pages, the files and the API), or says why there is none (404 for an
// unknown path, 405 with the allowed methods for a known one).

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
    /// The file routes, matched by their prefix before any other (Route.prefix).
    private let files: [Route]
    /// The SQL route of each method and template, first in table order: what answers a route
    /// held open at the socket when it is not (the events route, Action.events).
    private let statements: [String: Route]
    /// For each path that is a route's whole template (no parameter in it), the routes of its
    /// segment count that match it, in table order, with their path parameters: the common
    /// request is one dictionary probe, without splitting its path into segments and comparing
    /// it with every route of that length (what `match` does for the other paths).
    private let exact: [String: [(route: Route, parameters: [String: String])]]

    public init(routes: [Route]) {
        self.routes = routes
        bySegmentCount = Dictionary(grouping: routes.filter { $0.prefix == nil }) { $0.segments.count }
        files = routes.filter { $0.prefix != nil }
        var statements: [String: Route] = [:]
        for route in routes {
            guard case .sql = route.action, statements[route.method + " " + route.template] == nil else { continue }
            statements[route.method + " " + route.template] = route
        }
        self.statements = statements
        var exact: [String: [(route: Route, parameters: [String: String])]] = [:]
        for route in routes {
            guard let path = route.literalPath, exact[path] == nil else { continue }
            let segments = path.unicodeScalars.split(separator: "/").map(Substring.init)
            exact[path] = (bySegmentCount[segments.count] ?? []).compactMap { candidate in
                candidate.parameters(for: segments).map { (candidate, $0) }
            }
        }
        self.exact = exact
    }

    public func match(method: String, path: String) -> RouteMatch {
        let wanted = method == "HEAD" ? "GET" : method
        for route in files {
            guard let prefix = route.prefix, path.hasPrefix(prefix.path) else { continue }
            guard route.method == wanted else { return .methodNotAllowed(allowed: route.allowed) }
            return .found(route, parameters: [prefix.parameter: String(path.dropFirst(prefix.path.count))])
        }
        if let candidates = exact[path] {
            var allowed: [String] = []
            for (route, parameters) in candidates {
                if route.method == wanted { return .found(route, parameters: parameters) }
                allowed.append(contentsOf: route.allowed)
            }
            return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
        }
        // Split on the "/" scalar, not on Characters: a combining mark right after a slash
        // (/friend-requests/%E1%A4%AA/accept) joins it into one Character, and the path no route.
        let parts = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map(Substring.init)
        // "/a/b" splits to ["", "a", "b"]; an empty part anywhere else ("//", trailing "/") is no route.
        guard path.hasPrefix("/"), !parts.contains(where: \.isEmpty) || path == "/" else { return .notFound }
        let segments = Array(parts.filter { !$0.isEmpty })
        var allowed: [String] = []
        for route in bySegmentCount[segments.count] ?? [] {
            guard let parameters = route.parameters(for: segments) else { continue }
            if route.method == wanted { return .found(route, parameters: parameters) }
            allowed.append(contentsOf: route.allowed)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// The route for a request, matched by the server from its head already or here; an unknown
    /// path is 404, a known one with another method 405 with Allow.
    func route(_ request: Request) throws(Problem) -> (Route, [String: String]) {
        switch request.match ?? match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return (route, parameters)
        case .methodNotAllowed(let allowed):
            throw Problem(
                405, "method_not_allowed", "\(request.method) is not allowed here.", allow: allowed.joined(separator: ", "))
        case .notFound:
            throw Problem(404, "not_found", "There is nothing at \(request.path).")
        }
    }

    /// The SQL route that answers `route` when it is not held open (the events route); 404 when the
    /// table has none.
    func statementRoute(behind route: Route) throws(Problem) -> Route {
        guard let statement = statements[route.method + " " + route.template] else {
            throw Problem(404, "not_found", "There is nothing at \(route.template).")
        }
        return statement
    }
}

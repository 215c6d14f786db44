// Routes: the server's table of contents, the one list every request is matched against
// (Router). The routes answered by one SQL function are declared in SQL beside their functions
// (api.endpoints, sql/api/001_endpoints.sql) and generated into Generated/Endpoints.swift; this
// file adds the routes the server answers itself: the service routes, the events route held open,
// the files and the web pages (docs/openapi.json describes the API and the first three,
// Route.documented).
// `reads: .replica`: shared data only (catalog, tips, the global board, avatars), answered by the
// read replica when READ_DATABASE_URL is set; what a user just wrote is always read from the
// primary. A replica is behind by its replication lag (milliseconds on one network).

public enum Routes {
    /// Answered by the server (and api.ready) before and beside any endpoint.
    static let service: [Route] =
        [
            Route("GET", "/health", .health, access: .public, admission: .always),
            Route("GET", "/ready", .ready, access: .public, admission: .always),
            Route("GET", "/openapi.json", .openAPI, access: .public),
            // Held open at the socket (an SSE stream, a waiting long-poll), else answered by the
            // endpoint of the same method and path, api.events_list (Action.events).
            Route(eventsList.method, eventsList.template, .events),
            // Files: everything under the prefix, GET and HEAD; no release controls, no body rule.
            Route("GET", "/assets/{name}", .asset, access: .public, admission: .always),
            Route("GET", "/web/{name}", .webFile, access: .public, admission: .always),
        ] + WebPages.all.map(\.entry)

    /// Every route, the one list the router matches: the service routes first, then the endpoints.
    public static let all: [Route] = service + endpoints

    /// The events list as its SQL declares it (sql/api/100_events.sql): its path is the one the
    /// server holds open, and its template names the stream in the log and the metrics.
    static let eventsList = endpoint("api.events_list")

    /// What the server calls at the events route before it holds a stream or a long-poll open:
    /// the user, their stream limit and the starting cursor.
    public static let eventsStreamOpen = Route(eventsList.method, eventsList.template, .sql("api.events_stream_open"))

    /// What admission reads the release controls from when they are not in memory: the config
    /// route, as its SQL declares it (sql/api/120_config.sql).
    static let configGet = endpoint("api.config_get")

    /// The route of a function the server itself depends on: declared in SQL, so a table
    /// without it is a broken build, which the first test (and the first request) shows.
    private static func endpoint(_ function: String) -> Route {
        guard let route = endpoints.first(where: { $0.action == .sql(function) }) else {
            preconditionFailure("\(function) has no row in api.endpoints")
        }
        return route
    }
}

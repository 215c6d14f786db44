// Routes: the server's table of contents, the one list every request is matched against
// (Router). The routes answered by one SQL function are declared in SQL beside their functions
// (api.endpoints, sql/api/001_endpoints.sql) and generated into Generated/Endpoints.swift; this
// file adds the routes the server answers itself: the service routes, GET /events held open,
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
            Route("GET", "/events", .events),
            // Files: everything under the prefix, GET and HEAD; no release controls, no body rule.
            Route("GET", "/assets/{name}", .asset, access: .public, admission: .always),
            Route("GET", "/web/{name}", .webFile, access: .public, admission: .always),
        ] + WebPages.all.map(\.entry)

    /// Every route, the one list the router matches: the service routes first, then the endpoints.
    public static let all: [Route] = service + endpoints

    /// What the server calls at GET /events before it holds a stream or a long-poll open:
    /// the user, their stream limit and the starting cursor.
    public static let eventsStreamOpen = Route("GET", "/events", .sql("api.events_stream_open"))

    /// What admission reads the release controls from when they are not in memory: GET /config's
    /// route, as its SQL declares it (sql/api/120_config.sql; a table without it fails every test).
    static let configGet = endpoints.first { $0.action == .sql("api.config_get") }!
}

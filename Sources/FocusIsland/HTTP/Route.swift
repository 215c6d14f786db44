// Route: one line of the server's table of contents: method, path template, what answers it
// (its handler kind, Action), whether a bearer token is needed, the success status, and what
// body it takes. Every request is matched against this table (Router) before anything answers.

public enum Access: Sendable { case `public`, bearer }

/// Whether the release controls hold the route (Live/ReleaseControls.swift): an app below its
/// platform's minimum gets 426, every app 503 during maintenance. `.always`: what must work
/// whatever the app's version or the server's state: reading the controls themselves
/// (api.config_get), liveness and readiness (a load balancer must not drop every instance during
/// maintenance), deleting an account and exporting its data (a person's rights do not wait for
/// an update).
public enum Admission: Sendable { case controlled, always }

public enum BodyKind: Sendable {
    /// No body is read; one that says something (anything but none, white space or `{}`) is
    /// 400 body_not_allowed before anything runs (Pipeline.checkBody), never ignored.
    case none
    /// `application/json`, parsed and validated by SQL.
    case json
    /// `application/json` when there is a body; none at all is read as `{}` (finish, whose
    /// fields are all optional and which older apps call without a body).
    case optionalJSON
    /// Raw `image/png` or `image/jpeg` bytes, checked by SQL.
    case image
}

public enum ResponseKind: Sendable {
    /// JSON text from an `api.reply`.
    case json
    /// Bytes and their content type from an `api.file_reply` (avatars).
    case file
}

public enum Action: Sendable, Equatable {
    /// Answered by the server alone, without the database.
    case health
    /// Answered by `api.ready`; any failure is 503.
    case ready
    /// The OpenAPI document the server read at start (Pipeline.openAPI).
    case openAPI
    /// Answered by exactly one function in schema `api`.
    case sql(String)
    /// The events route (api.events_list): at the socket, an SSE stream or a waiting long-poll (Server/MHD/
    /// EventsEndpoint.swift); every other answer is the SQL route's of the same method and path
    /// (Router.statementRoute), whose long-poll asks it again on each wake.
    case events
    /// A file of assets/ (HTTP/Assets.swift) under the template's last parameter.
    case asset
    /// A static file of web/static/ under the template's last parameter (Web/WebAnswers.swift).
    case webFile
    /// A web page of WebPages.all: its form, its one function, its template (Web/WebAnswers.swift).
    indirect case page(WebPage)

    /// Files: the route owns every path under its prefix (slashes and empty parts included, each
    /// a plain 404 when no file has that name) and answers GET and HEAD, which its 405 says.
    var servesFiles: Bool { self == .asset || self == .webFile }

    /// Whether docs/openapi.json describes the route. Not the pages and files (docs/web.md), nor
    /// The events route's hold at the socket: the document describes the SQL route it answers with.
    var documented: Bool {
        switch self {
        case .health, .ready, .openAPI, .sql: true
        case .events, .asset, .webFile, .page: false
        }
    }
}

/// Which database a route reads from. Routes that read only shared data (the catalog, tips,
/// the global board, avatars) may go to a streaming replica (READ_DATABASE_URL); everything a
/// user just wrote is read from the primary.
public enum Reads: Sendable, Equatable {
    case primary
    case replica
    /// The replica when query parameter `name` is `value` (`scope=global`), else the primary.
    case replicaWhen(parameter: String, is: String)
}

/// A final class, not a struct (2026-12-07): the router hands a route to every stage of every
/// request, and a struct of a dozen strings and arrays was copied (a retain and a release of
/// each field) at each hand-over; a reference is one retain, and final lets calls be direct.
public final class Route: Sendable {
    public let method: String
    public let template: String
    public let action: Action
    public let access: Access
    public let status: Int
    public let body: BodyKind
    /// Body limit in bytes for this route; nil means the configured default.
    public let bodyLimit: Int?
    public let response: ResponseKind
    public let reads: Reads
    /// The answer holds item or tip text, in the negotiated language (Routes.localized).
    public let localized: Bool
    public let admission: Admission
    let segments: [Segment]
    /// The template's path when it has no parameter: the router finds such a
    /// route by a whole-path comparison, without splitting the path (Router.match).
    let literalPath: String?
    /// A file route's path prefix (the template before its last parameter) and that parameter's
    /// name; nil for the others.
    let prefix: (path: String, parameter: String)?
    /// The one statement this route runs and its prepared name, made once (not per call).
    let statement: String?
    let statementName: String
    /// A POST's or DELETE's statement for a request with an Idempotency-Key: the endpoint through
    /// api.idempotent, which keeps and replays its answer (nil for the other routes). Without a
    /// key api.idempotent is a plain call of the endpoint, which `statement` makes without its
    /// cost (a dynamic EXECUTE, planned on every call).
    let keyedStatement: String?
    let keyedStatementName: String

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(
        _ method: String, _ template: String, _ action: Action, access: Access = .bearer,
        status: Int = 200, body: BodyKind = .none, bodyLimit: Int? = nil, response: ResponseKind = .json,
        reads: Reads = .primary, admission: Admission = .controlled
    ) {
        self.method = method
        self.template = template
        self.action = action
        self.access = access
        self.status = status
        self.body = body
        self.bodyLimit = bodyLimit
        self.response = response
        self.reads = reads
        if case .sql(let function) = action { localized = Routes.localized.contains(function) } else { localized = false }
        self.admission = admission
        self.statement = Self.statement(method, action, body, response, keyed: false)
        self.keyedStatement = Self.statement(method, action, body, response, keyed: true)
        // The same function under another method may run another statement (api.idempotent).
        if case .sql(let function) = action {
            statementName = method + " " + function + "/" + String(describing: body)
        } else {
            statementName = ""
        }
        keyedStatementName = statementName + " keyed"
        self.segments = template.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        literalPath = segments.allSatisfy { if case .literal = $0 { true } else { false } } ? template : nil
        if action.servesFiles, let open = template.lastIndex(of: "{"), case .parameter(let name)? = segments.last {
            prefix = (String(template[..<open]), name)
        } else {
            prefix = nil
        }
    }

    /// Whether docs/openapi.json describes this route (Action.documented).
    public var documented: Bool { action.documented }

    /// The methods a 405 on this route's path names: its own, and HEAD for a file.
    var allowed: [String] { action.servesFiles ? [method, "HEAD"] : [method] }

    /// The path parameters if `pathSegments` fits this template.
    func parameters(for pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        // The literals first: most routes compared fail there, before any dictionary is made.
        for (segment, part) in zip(segments, pathSegments) {
            if case .literal(let text) = segment, text != part { return nil }
        }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, pathSegments) {
            if case .parameter(let name) = segment { parameters[name] = String(part) }
        }
        return parameters
    }

    /// The statement and its prepared name for a request with (`keyed`) or without an
    /// Idempotency-Key.
    func statement(keyed: Bool) -> (name: String, text: String)? {
        if keyed, let keyedStatement { return (keyedStatementName, keyedStatement) }
        return statement.map { (statementName, $0) }
    }

    /// The signed-in user's id, or null: what api.authenticate (or a keyed replay) set for the
    /// transaction ('' once a session has seen the setting, null before).
    static let userColumn = "nullif(current_setting('focus.user_id', true), '')"

    /// The one statement a route runs: token, path and query parameters, body. A localized
    /// route's parameters pass through api.use_language, which sets params.language for SQL.
    /// `keyed`: the statement for a request with an Idempotency-Key, nil where it is the same.
    static func statement(
        _ method: String, _ action: Action, _ bodyKind: BodyKind, _ response: ResponseKind, keyed: Bool
    ) -> String? {
        guard case .sql(let function) = action else { return nil }
        let params = Routes.localized.contains(function) ? "api.use_language($2::jsonb)" : "$2::jsonb"
        let body =
            switch bodyKind {
            case .none: "'{}'::jsonb"
            case .json, .optionalJSON: "api.parse_body($3)"
            case .image: "api.parse_image($3)"
            }
        // Then the user api.authenticate signed the request in as, for the log line: a
        // transaction-local setting, read after the function ran (Reply.swift).
        let columns =
            switch response {
            case .json: "status, body::text, etag, retry_after, code, message, " + userColumn
            case .file: "status, content_type, data, etag, code, message, " + userColumn
            }
        // A POST or DELETE with an Idempotency-Key (params.idempotency_key) runs under it:
        // api.idempotent decides everything (which endpoints change state, scope, replay, 422).
        let underKey = (method == "POST" || method == "DELETE") && bodyKind != .image && response == .json
        if keyed {
            return underKey ? "select \(columns) from api.idempotent('\(function)', $1, \(params), \(body))" : nil
        }
        return "select \(columns) from \(function)($1, \(params), \(body))"
    }
}

// Problem: an RFC 9457 problem+json body: {"type","title","status","detail","code"}.
// `code` is the stable snake_case name clients branch on (docs/errors.md lists them all).

public struct Problem: Error, Sendable, Equatable {
    public let status: Int
    public let code: String
    /// A sentence for people.
    public let detail: String
    /// Extra members as a JSON object text from SQL (e.g. {"balance":3,"price":10}).
    public let extensions: String?
    /// The Allow header of a 405.
    public let allow: String?
    /// The Retry-After header of a 503 (seconds); nil: 1.
    public let retryAfter: String?
    /// The user SQL had signed the request in as when it raised this, for the log line only.
    public var user: String? = nil

    public init(
        _ status: Int, _ code: String, _ detail: String, extensions: String? = nil, allow: String? = nil,
        retryAfter: String? = nil
    ) {
        self.status = status
        self.code = code
        self.detail = detail
        self.extensions = extensions
        self.allow = allow
        self.retryAfter = retryAfter
    }

    public var json: String {
        var text =
            "{\"type\":" + JSONText.quote("urn:focus-island:problem:" + code)
            + ",\"title\":" + JSONText.quote(HTTPStatus.reason(status))
            + ",\"status\":\(status),\"detail\":" + JSONText.quote(detail)
            + ",\"code\":" + JSONText.quote(code)
        if let extensions, extensions.hasPrefix("{"), extensions.hasSuffix("}"), extensions.count > 2 {
            text += "," + extensions.dropFirst().dropLast()
        }
        return text + "}"
    }

    public var response: Response {
        var response = Response(
            status: status, headers: [("Content-Type", "application/problem+json")],
            body: Array(json.utf8))
        if status == 401 { response.setHeader("WWW-Authenticate", "Bearer") }
        if status == 503 { response.setHeader("Retry-After", retryAfter ?? "1") }
        if let allow { response.setHeader("Allow", allow) }
        response.code = code
        response.user = user
        return response
    }
}

public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "HTTP \(status)"
        }
    }
}

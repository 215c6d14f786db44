// BodyCheck: the body's form, one rule for every route of the API (the events endpoint calls
// it too): its size; none on a route that takes none (`Route.body`, the one source of which
// routes take one, as docs/openapi.json's requestBody); JSON text without a repeated key on a
// JSON route; an image type on an image route. What the body says is SQL's.

extension Pipeline {
    /// The body limit for a route match, known from the request head before the body is read.
    public func bodyLimit(_ match: RouteMatch) -> Int {
        if case .found(let route, _) = match { return route.bodyLimit ?? defaultBodyLimit }
        return defaultBodyLimit
    }

    func checkBody(_ request: Request, for route: Route) throws(Problem) {
        if request.bodyExceededLimit || request.body.count > route.bodyLimit ?? defaultBodyLimit {
            throw Problem(413, "body_too_large", "The body is larger than this route accepts.")
        }
        try BodyCheck.form(request, route)
    }
}

enum BodyCheck {
    static func form(_ request: Request, _ route: Route) throws(Problem) {
        // Read only where it matters: a GET's Content-Type (apps send one on every request) is
        // not split and lowercased for nothing.
        var mediaType: String? {
            request.header("content-type")?.split(separator: ";").first.map { $0.trimming(" \t").lowercased() }
        }
        switch route.body {
        case .none:
            // Never ignored: a client sending fields here believes they count, and one that does
            // (`{"coins": 999}` to an accept) must learn that they do not. A body that says
            // nothing (none, `{}`) is no body, whatever its Content-Type (docs/versioning.md).
            guard JSONKeys.saysNothing(request.body) else {
                throw Problem(
                    400, "body_not_allowed", "\(route.method) \(route.template) takes no body; send none.")
            }
        case .json, .optionalJSON:
            if route.body == .optionalJSON && request.body.isEmpty { return }
            guard mediaType == "application/json" else {
                throw Problem(415, "unsupported_media_type", "Send the body as Content-Type: application/json.")
            }
            // libpq passes text parameters as C strings: NUL or invalid UTF-8 cannot be JSON text.
            guard !request.body.contains(0), String(validating: request.body, as: UTF8.self) != nil else {
                throw Problem(400, "invalid_json", "The body is not valid UTF-8 JSON.")
            }
            // jsonb keeps the last of two equal keys silently; other readers keep the first.
            if let key = JSONKeys.firstDuplicate(in: request.body) {
                let shown = key.unicodeScalars.count > 100 ? String(String.UnicodeScalarView(key.unicodeScalars.prefix(100))) + "…" : key
                throw Problem(
                    400, "duplicate_key", "The key \(JSONText.quote(shown)) appears twice in one object; send each key once.",
                    extensions: JSONText.object(["key": shown]))
            }
        case .image:
            guard mediaType == "image/png" || mediaType == "image/jpeg" else {
                throw Problem(415, "unsupported_image", "Send a PNG or JPEG image.")
            }
        }
    }

    /// The body as the statement's third parameter: JSON text, or hex for binary images.
    static func text(_ request: Request, _ route: Route) -> String {
        switch route.body {
        case .image: return hex(request.body)
        case .optionalJSON where request.body.isEmpty: return "{}"
        default: return String(decoding: request.body, as: UTF8.self)
        }
    }
}

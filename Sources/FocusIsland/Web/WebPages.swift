// WebPages: the pages under /account/ and /moderation, rendered by the server from web/*.html
// (docs/web.md says why server-rendered). Each page that reads or changes data runs exactly one
// `api` function, as a JSON route does (the same statement, Route.statement); its answer, or
// its problem, is rendered into the page's template, where every value is escaped. Forms are
// plain HTML (application/x-www-form-urlencoded), so they work with JavaScript off; the one
// script (web/live.js) only refreshes the moderation queue when a report arrives.
// The console's session is a cookie holding a token: HttpOnly, SameSite=Strict, Secure
// outside localhost; every form that changes something carries the session's CSRF token,
// which SQL checks.
import Foundation

public struct WebPage: Sendable {
    public enum Access: Sendable {
        case `public`
        /// The console's cookie is the token; without one a GET goes to the sign-in page.
        case session
    }

    /// What a success shows.
    public enum Outcome: Sendable {
        /// This template with the answer's fields over the form's.
        case page(String)
        /// 303 to the answer's `location` (a path under /moderation).
        case location
        /// The answer's token becomes the session cookie; 303 to the queue.
        case signIn
        /// The cookie is cleared; 303 to the sign-in page.
        case signOut
    }

    public let method: String
    public let template: String
    /// The one function it runs; nil for a page without data.
    public let route: Route?
    public let access: Access
    public let outcome: Outcome
    /// The template a problem is shown in (with `error`, `code`, `status` and the form's fields).
    public let failure: String
    let segments: [Route.Segment]

    init(
        _ method: String, _ template: String, _ function: String?, access: Access = .public, outcome: Outcome,
        failure: String
    ) {
        self.method = method
        self.template = template
        self.route = function.map { Route(method, template, .sql($0), access: .public, body: method == "POST" ? .json : .none) }
        self.access = access
        self.outcome = outcome
        self.failure = failure
        self.segments = Route("GET", template, .health).segments
    }

    func parameters(for path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(Substring.init)
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): if text != part { return nil }
            case .parameter(let name):
                if part.isEmpty { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }
}

public enum WebPages {
    /// The cookie that holds a console session's token.
    static let cookieName = "fi_console"
    /// Static files under /web/ (web/static/), by name.
    static let staticPrefix = "/web/"

    public static let all: [WebPage] = [
        // Account deletion without the app (public; no cookie, no script).
        WebPage("GET", "/account/delete", nil, outcome: .page("account-delete.html"), failure: "account-delete.html"),
        WebPage(
            "POST", "/account/delete", "api.account_deletion_create", outcome: .page("account-delete-code.html"),
            failure: "account-delete.html"),
        WebPage(
            "POST", "/account/delete/confirm", "api.account_deletion_confirm", outcome: .page("account-deleted.html"),
            failure: "account-delete-code.html"),

        // The moderation console (moderators only).
        WebPage("GET", "/moderation/sign-in", nil, outcome: .page("moderation-sign-in.html"), failure: "moderation-sign-in.html"),
        WebPage(
            "POST", "/moderation/sign-in", "api.moderation_session_create", outcome: .signIn,
            failure: "moderation-sign-in.html"),
        WebPage(
            "POST", "/moderation/sign-out", "api.moderation_session_delete", access: .session, outcome: .signOut,
            failure: "moderation-error.html"),
        WebPage(
            "GET", "/moderation", "api.moderation_queue_list", access: .session, outcome: .page("moderation-queue.html"),
            failure: "moderation-error.html"),
        WebPage(
            "GET", "/moderation/people/{id}", "api.moderation_user_get", access: .session,
            outcome: .page("moderation-user.html"), failure: "moderation-error.html"),
        WebPage(
            "GET", "/moderation/audit", "api.moderation_audit_list", access: .session,
            outcome: .page("moderation-audit.html"), failure: "moderation-error.html"),
        WebPage(
            "POST", "/moderation/act", "api.moderation_action_create", access: .session, outcome: .location,
            failure: "moderation-error.html"),
    ]

    /// What a page's alert says besides a problem's own sentence from SQL (2026-12-05,
    /// docs/web.md): fixed sentences by key. A link's `?error=<key>` shows its key's sentence and
    /// any other `?error=` nothing, so no link puts someone's words on the site's own page.
    static let messages: [String: String] = [
        "code_wrong": "The code is wrong, expired or already used.",
        "session_ended": "Your session ended; sign in again.",
        "unknown_field": "This form has a field this page does not take; reload the page and try again.",
    ]

    /// The fields the pages' forms and query strings have. A problem about another field (one
    /// SQL refuses as not a field here) is shown as `unknown_field`: its name came from the
    /// request, so it is not repeated on the page.
    static let fieldNames: Set<String> = [
        "email", "code", "password", "csrf_token", "action", "user_id", "report_id", "reason", "display_name", "until",
        "status", "id",
    ]

    /// The query's fields a page without data shows: only the email its form is filled with,
    /// in the input's value, never in a message.
    static let prefilled: Set<String> = ["email"]

    /// The sentence a page shows for a problem: SQL's own (fixed text in sql/api), except for a
    /// field whose name the request chose.
    static func sentence(code: String, message: String, extensions: String?) -> String {
        guard code == "invalid_field" else { return message }
        guard case .object(let members) = PageValue.parse(Array((extensions ?? "").utf8)),
            case .string(let field)? = members["field"], fieldNames.contains(field)
        else { return messages["unknown_field"] ?? "" }
        return message
    }

    /// The headers of every page and static file (2026-12-01, docs/web.md): scripts, styles and
    /// images from this origin only (images also as data: URLs, the avatars a moderator sees),
    /// no inline script or style, no framing, forms post here only, no referrer leaves for another site.
    public static let securityHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    /// The page for a method and path, with its path parameters; nil when no page has the path.
    static func match(method: String, path: String) -> (WebPage, [String: String])? {
        let wanted = method == "HEAD" ? "GET" : method
        for page in all where page.method == wanted {
            if let parameters = page.parameters(for: path) { return (page, parameters) }
        }
        return nil
    }

    /// Whether some page or static file answers this path (any method). Asked for every request:
    /// a path whose first segment no page's template starts with (every API path) is refused
    /// without matching each page (which splits the path once per page).
    static func owns(_ path: String) -> Bool {
        if path.hasPrefix(staticPrefix) { return true }
        guard pageFirstSegments.contains(firstSegment(path)) else { return false }
        return all.contains { $0.parameters(for: path) != nil }
    }

    /// The first segments of the pages' templates ("account", "moderation"), all literal.
    private static let pageFirstSegments = Set(all.map { firstSegment($0.template) })

    private static func firstSegment(_ path: String) -> Substring {
        path.dropFirst().prefix { $0 != "/" }
    }

    /// The console cookie's token, if the request carries one.
    static func sessionToken(_ request: Request) -> String? {
        guard let header = request.header("cookie") else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimming(" \t") == cookieName {
                let value = parts[1].trimming(" \t")
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The request with the console cookie's token as its bearer when it has none: GET /events
    /// from the console's page (an EventSource sends cookies, not headers). Nothing else reads
    /// the cookie: the JSON routes take bearer tokens only.
    public static func withSessionAsBearer(_ request: Request) -> Request {
        guard request.header("authorization") == nil, let token = sessionToken(request) else { return request }
        var request = request
        request.headers["authorization"] = "Bearer " + token
        return request
    }

    /// `Secure` everywhere but on this machine (http://localhost has no TLS to require).
    static func cookieAttributes(_ request: Request) -> String {
        let host = request.header("host").map(hostName) ?? ""
        let local = host == "localhost" || host == "127.0.0.1" || host == "[::1]"
        return "; Path=/; HttpOnly; SameSite=Strict" + (local ? "" : "; Secure")
    }

    /// "example.org:8080" → "example.org"; "[::1]:80" → "[::1]".
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[...end]) }
        return String(host.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }

    /// application/x-www-form-urlencoded fields; a repeated name keeps its last value. nil when
    /// the body is not valid UTF-8 after decoding.
    static func formFields(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else { return nil }
            if !name.isEmpty { fields[name] = value }
        }
        return fields
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), bytes.distance(from: index, to: bytes.endIndex) >= 3,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        guard !out.contains(0) else { return nil }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// web/: the page templates and the static files (web/static/), read once at start.
public struct WebSite: Sendable {
    public let templates: [String: Template]
    public let files: [String: AssetStore.File]

    public static let empty = WebSite(templates: [:], files: [:])

    init(templates: [String: Template], files: [String: AssetStore.File]) {
        self.templates = templates
        self.files = files
    }

    /// Every *.html in `directory` as a template and every file in its static/ folder; a page
    /// the table names that is missing, or a template that does not parse, stops start-up.
    public init(directory: String) throws(ConfigurationError) {
        var templates: [String: Template] = [:]
        var files: [String: AssetStore.File] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".html") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            templates[name] = try Template(String(decoding: data, as: UTF8.self), name: name)
        }
        let statics = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/static")) ?? []
        for name in statics where AssetStore.isKey(name) {
            guard let data = FileManager.default.contents(atPath: directory + "/static/" + name) else { continue }
            let type =
                switch name.split(separator: ".").last {
                case "css": "text/css; charset=utf-8"
                case "js": "text/javascript; charset=utf-8"
                case "png": "image/png"
                default: "application/octet-stream"
                }
            files[name] = AssetStore.File(bytes: Array(data), contentType: type)
        }
        for page in WebPages.all {
            for name in [page.failure] + (page.outcome.template.map { [$0] } ?? []) where templates[name] == nil {
                throw ConfigurationError(variable: "WEB_DIR", reason: "\(directory)/\(name) is missing")
            }
        }
        self.init(templates: templates, files: files)
    }
}

extension WebPage.Outcome {
    var template: String? {
        if case .page(let name) = self { return name }
        return nil
    }
}

extension Pipeline {
    /// The answer for a page or a static file under /web/; nil when the path is neither.
    func answerWeb(_ request: Request, template: inout String) -> Response? {
        if request.path.hasPrefix(WebPages.staticPrefix) {
            template = WebPages.staticPrefix + "{name}"
            return staticFile(request)
        }
        guard WebPages.owns(request.path) else { return nil }
        guard let (page, parameters) = WebPages.match(method: request.method, path: request.path) else {
            let pages = WebPages.all.filter { $0.parameters(for: request.path) != nil }
            template = pages.first?.template ?? "-"
            let allowed = pages.map(\.method)
            return Problem(405, "method_not_allowed", "\(request.method) is not allowed here.", allow: allowed.joined(separator: ", "))
                .response
        }
        template = page.template
        var response = answer(page, parameters, request)
        for (name, value) in WebPages.securityHeaders { response.setHeader(name, value) }
        return response
    }

    private func staticFile(_ request: Request) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Problem(405, "method_not_allowed", "\(request.method) is not allowed here.", allow: "GET, HEAD").response
        }
        guard let file = web.files[String(request.path.dropFirst(WebPages.staticPrefix.count))] else {
            return Problem(404, "not_found", "There is nothing at \(request.path).").response
        }
        var response = Response(
            status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: file.bytes)
        for (name, value) in WebPages.securityHeaders { response.setHeader(name, value) }
        return response
    }

    private func answer(_ page: WebPage, _ parameters: [String: String], _ request: Request) -> Response {
        var form: [String: String] = [:]
        if request.method == "POST" {
            let mediaType = request.header("content-type")?.split(separator: ";").first.map { $0.trimming(" \t").lowercased() }
            guard mediaType == "application/x-www-form-urlencoded" else {
                return render(page.failure, status: 415, error: "Send this form from its page.", form: [:])
            }
            if request.bodyExceededLimit || request.body.count > defaultBodyLimit {
                return render(page.failure, status: 413, error: "The form is larger than this page accepts.", form: [:])
            }
            guard let fields = WebPages.formFields(request.body) else {
                return render(page.failure, status: 400, error: "The form could not be read.", form: [:])
            }
            // A form posted from another site: SameSite=Strict keeps the cookie off it and the
            // CSRF token catches the rest; this refuses even the sign-in and deletion forms.
            if let origin = request.header("origin"), !origin.hasSuffix("://" + (request.header("host") ?? "-")) {
                return render(page.failure, status: 403, error: "This form came from another site.", form: [:])
            }
            form = fields
        }
        guard let route = page.route else {
            // The query's text never reaches a message: `error` is a key of WebPages.messages.
            let error = request.query["error"].flatMap { WebPages.messages[$0] }
            return render(page.failure, status: 200, error: error, form: request.query.filter { WebPages.prefilled.contains($0.key) })
        }
        var token: String? = nil
        if page.access == .session {
            token = WebPages.sessionToken(request)
            if token == nil { return signInRedirect(request, clear: false) }
        }
        let arguments = JSONText.object(Self.parameters(request, path: parameters))
        let body = route.body == .none ? [] : [JSONText.object(form)]
        let reply: Reply
        do {
            reply = try call(route, [token, arguments] + body, pool: pool)
        } catch {
            if page.access == .session && error.status == 401 {
                return signInRedirect(request, clear: true, location: "/moderation/sign-in?error=session_ended")
            }
            let sentence = WebPages.sentence(code: error.code, message: error.detail, extensions: error.extensions)
            var response = render(page.failure, status: error.status, error: sentence, form: form.merging(["code": error.code]) { $1 })
            // The log line's, as for an API problem (Response.code, Response.user).
            response.code = error.code
            response.user = error.user
            return response
        }
        var response = outcome(page, reply, form: form, request: request)
        response.user = reply.user
        return response
    }

    /// The page, redirect or failure page a page's reply makes.
    private func outcome(_ page: WebPage, _ reply: Reply, form: [String: String], request: Request) -> Response {
        if let code = reply.code {
            var response = render(
                page.failure, status: reply.status ?? 400,
                error: WebPages.sentence(code: code, message: reply.message ?? code, extensions: reply.extensions),
                form: form.merging(["code": code]) { $1 })
            if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
            response.code = code
            return response
        }
        let answer = reply.body.map(PageValue.parse) ?? .null
        switch page.outcome {
        case .page(let name):
            var context = form.mapValues(PageValue.string)
            if case .object(let fields) = answer { context.merge(fields) { $1 } }
            return render(name, status: 200, context: .object(context))
        case .location:
            guard case .object(let fields) = answer, case .string(let location)? = fields["location"],
                location.hasPrefix("/moderation")
            else { return redirect("/moderation") }
            return redirect(location)
        case .signIn:
            guard case .object(let fields) = answer, case .string(let token)? = fields["token"],
                case .number(let maxAge)? = fields["max_age"]
            else { return render(page.failure, status: 500, error: "Something went wrong on our side.", form: [:]) }
            var response = redirect("/moderation")
            response.setHeader(
                "Set-Cookie", "\(WebPages.cookieName)=\(token); Max-Age=\(Int(maxAge))" + WebPages.cookieAttributes(request))
            return response
        case .signOut:
            return signInRedirect(request, clear: true)
        }
    }

    private func signInRedirect(_ request: Request, clear: Bool, location: String = "/moderation/sign-in") -> Response {
        var response = redirect(location)
        if clear {
            response.setHeader("Set-Cookie", "\(WebPages.cookieName)=; Max-Age=0" + WebPages.cookieAttributes(request))
        }
        return response
    }

    private func redirect(_ location: String) -> Response {
        Response(
            status: 303, headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
            body: Array("See \(location)\n".utf8))
    }

    private func render(_ name: String, status: Int, error: String?, form: [String: String]) -> Response {
        var context = form.mapValues(PageValue.string)
        if let error {
            context["error"] = .string(error)
            context["status"] = .number(Double(status))
        }
        return render(name, status: status, context: .object(context))
    }

    private func render(_ name: String, status: Int, context: PageValue) -> Response {
        guard let template = web.templates[name] else {
            return Problem(500, "internal_error", "Something went wrong on our side.").response
        }
        return Response(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(template.render(context).utf8))
    }
}

// WebPages: the pages under /account/ and /moderation, rendered by the server from web/*.html
// (docs/web.md says why server-rendered). Each page that reads or changes data runs exactly one
// `api` function, as a JSON route does (the same statement, Route.statement); its answer, or
// its problem, is rendered into the page's template, where every value is escaped. Forms are
// plain HTML (application/x-www-form-urlencoded), so they work with JavaScript off; the one
// script (web/live.js) only refreshes the moderation queue when a report arrives.
// The console's session is a cookie holding a token: HttpOnly, SameSite=Strict, Secure
// outside localhost; every form that changes something carries the session's CSRF token,
// which SQL checks. Each page is a line of the route table (Routes.service, `entry`); the
// pages are answered by Web/WebAnswers.swift.
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
    }

    /// The page's line in the route table: no release controls (no app shows it), and its own
    /// rules on the body (a form, Web/WebAnswers.swift).
    var entry: Route { Route(method, template, .page(self), access: .public, admission: .always) }
}

extension WebPage: Equatable {
    /// A page is its method and template, as a route is.
    public static func == (a: WebPage, b: WebPage) -> Bool { a.method == b.method && a.template == b.template }
}

public enum WebPages {
    /// The cookie that holds a console session's token.
    static let cookieName = "fi_console"

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
    /// docs/web.md): fixed sentences by key, in English (a translation's are in
    /// web/<language>/sentences.json, with a sentence for each problem code a page shows). A
    /// link's `?error=<key>` shows its key's sentence and any other `?error=` nothing, so no link
    /// puts someone's words on the site's own page.
    static let messages: [String: String] = [
        "code_wrong": "The code is wrong, expired or already used.",
        "session_ended": "Your session ended; sign in again.",
        "unknown_field": "This form has a field this page does not take; reload the page and try again.",
        "form_media_type": "Send this form from its page.",
        "form_too_large": "The form is larger than this page accepts.",
        "form_unreadable": "The form could not be read.",
        "form_other_site": "This form came from another site.",
        "internal_error": "Something went wrong on our side.",
    ]

    /// The problem codes a page may show (its function's and the server's), each with a
    /// sentence in every translation's sentences.json (LanguageCoverageTests); in English the
    /// problem's own message from SQL is shown.
    static let problemCodes: [String] = [
        "invalid_email", "invalid_field", "invalid_deletion_code", "too_many_attempts", "invalid_credentials",
        "unauthorized", "not_moderator", "csrf_failed", "user_not_found", "report_not_found", "report_resolved",
        "avatar_not_found", "not_found", "account_suspended", "inappropriate_display_name", "invalid_display_name",
        "unavailable", "internal_error",
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

    /// The request with the console cookie's token as its bearer when it has none: the events
    /// route from the console's page (an EventSource sends cookies, not headers). Nothing else reads
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

/// web/: the page templates and the static files (web/static/), read once at start; each
/// translation a folder named by its language tag (web/es/: every page's template and
/// sentences.json, the alerts' sentences by key and problem code).
public struct WebSite: Sendable {
    public let templates: [String: Template]
    public let files: [String: AssetStore.File]
    /// By language, then template name.
    public let translations: [String: [String: Template]]
    /// By language, then key (WebPages.messages) or problem code.
    public let sentences: [String: [String: String]]

    public static let empty = WebSite(templates: [:], files: [:])

    init(
        templates: [String: Template], files: [String: AssetStore.File], translations: [String: [String: Template]] = [:],
        sentences: [String: [String: String]] = [:]
    ) {
        self.templates = templates
        self.files = files
        self.translations = translations
        self.sentences = sentences
    }

    /// The template `name` in `language`, English when that has no translation of it.
    func template(_ name: String, language: String) -> Template? {
        translations[language]?[name] ?? templates[name]
    }

    /// A fixed sentence (WebPages.messages) in `language`.
    func message(_ key: String, language: String) -> String? {
        sentences[language]?[key] ?? WebPages.messages[key]
    }

    /// What a page shows for a problem in `language`: the translation's sentence for its code,
    /// else the English one (WebPages.sentence).
    func problemSentence(code: String, message: String, extensions: String?, language: String) -> String {
        if let translated = sentences[language]?[code] { return translated }
        let english = WebPages.sentence(code: code, message: message, extensions: extensions)
        if english == WebPages.messages["unknown_field"], let translated = sentences[language]?["unknown_field"] { return translated }
        return english
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
        var translations: [String: [String: Template]] = [:]
        var sentences: [String: [String: String]] = [:]
        for language in names where MailTemplates.isLanguageTag(language) {
            let folder = directory + "/" + language
            let pages = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in pages where name.hasSuffix(".html") {
                guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
                translations[language, default: [:]][name] = try Template(
                    String(decoding: data, as: UTF8.self), name: language + "/" + name)
            }
            if let data = FileManager.default.contents(atPath: folder + "/sentences.json") {
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: String] else {
                    throw ConfigurationError(variable: "WEB_DIR", reason: "\(folder)/sentences.json is not an object of strings")
                }
                sentences[language] = object
            }
        }
        self.init(templates: templates, files: files, translations: translations, sentences: sentences)
    }
}

extension WebPage.Outcome {
    var template: String? {
        if case .page(let name) = self { return name }
        return nil
    }
}

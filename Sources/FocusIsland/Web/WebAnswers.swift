// WebAnswers: the answer of a web page (Web/WebPages.swift) or of a static file under /web/,
// once the router found its route: the form's own checks (415, 413, 400, another site's 403),
// the page's one statement, and its template rendered, or a redirect. A page's language
// (docs/languages.md): its Accept-Language negotiated as a localized route's (Language.swift),
// passed to its statement as params.language, unless its answer names one (a console page: the
// moderator's locale first, SQL's rule); the template and the alert's sentence in it.

extension Pipeline {
    /// A page's answer, with the headers every page carries (WebPages.securityHeaders).
    func answer(_ page: WebPage, _ parameters: [String: String], _ request: Request) -> Response {
        var response = pageAnswer(page, parameters, request)
        for (name, value) in WebPages.securityHeaders { response.setHeader(name, value) }
        return response
    }

    /// A file of web/static/ by name, or 404.
    func webFile(_ request: Request, name: String) -> Response {
        guard let file = web.files[name] else {
            return Problem(404, "not_found", "There is nothing at \(request.path).").response
        }
        var response = Response(
            status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: file.bytes)
        for (name, value) in WebPages.securityHeaders { response.setHeader(name, value) }
        return response
    }

    private func pageAnswer(_ page: WebPage, _ parameters: [String: String], _ request: Request) -> Response {
        // English when the languages cannot be read: a page still answers.
        let language = (try? self.language(request)) ?? AcceptLanguage.fallback
        var form: [String: String] = [:]
        if request.method == "POST" {
            let mediaType = request.header("content-type")?.split(separator: ";").first.map { $0.trimming(" \t").lowercased() }
            guard mediaType == "application/x-www-form-urlencoded" else {
                return render(
                    page.failure, status: 415, error: web.message("form_media_type", language: language), form: [:], language: language)
            }
            if request.bodyExceededLimit || request.body.count > defaultBodyLimit {
                return render(
                    page.failure, status: 413, error: web.message("form_too_large", language: language), form: [:], language: language)
            }
            guard let fields = WebPages.formFields(request.body) else {
                return render(
                    page.failure, status: 400, error: web.message("form_unreadable", language: language), form: [:], language: language)
            }
            // A form posted from another site: SameSite=Strict keeps the cookie off it and the
            // CSRF token catches the rest; this refuses even the sign-in and deletion forms.
            if let origin = request.header("origin"), !origin.hasSuffix("://" + (request.header("host") ?? "-")) {
                return render(
                    page.failure, status: 403, error: web.message("form_other_site", language: language), form: [:], language: language)
            }
            form = fields
        }
        guard let route = page.route else {
            // The query's text never reaches a message: `error` is a key of WebPages.messages.
            let error = request.query["error"].flatMap { WebPages.messages[$0] == nil ? nil : web.message($0, language: language) }
            return render(
                page.failure, status: 200, error: error, form: request.query.filter { WebPages.prefilled.contains($0.key) },
                language: language)
        }
        var token: String? = nil
        if page.access == .session {
            token = WebPages.sessionToken(request)
            if token == nil { return signInRedirect(request, clear: false) }
        }
        var statementParameters = Self.parameters(request, path: parameters)
        statementParameters["language"] = language
        let arguments = JSONText.object(statementParameters)
        let body = route.body == .none ? [] : [JSONText.object(form)]
        let reply: Reply
        do {
            reply = try call(route, [token, arguments] + body, pool: pool)
        } catch {
            if page.access == .session && error.status == 401 {
                return signInRedirect(request, clear: true, location: "/moderation/sign-in?error=session_ended")
            }
            let sentence = web.problemSentence(code: error.code, message: error.detail, extensions: error.extensions, language: language)
            var response = render(
                page.failure, status: error.status, error: sentence, form: form.merging(["code": error.code]) { $1 }, language: language)
            // The log line's, as for an API problem (Response.code, Response.user).
            response.code = error.code
            response.user = error.user
            return response
        }
        var response = outcome(page, reply, form: form, request: request, language: language)
        response.user = reply.user
        return response
    }

    /// The page, redirect or failure page a page's reply makes.
    private func outcome(_ page: WebPage, _ reply: Reply, form: [String: String], request: Request, language: String) -> Response {
        if let code = reply.code {
            var response = render(
                page.failure, status: reply.status ?? 400,
                error: web.problemSentence(code: code, message: reply.message ?? code, extensions: reply.extensions, language: language),
                form: form.merging(["code": code]) { $1 }, language: language)
            if let seconds = reply.retryAfter { response.setHeader("Retry-After", seconds) }
            response.code = code
            return response
        }
        let answer = reply.body.map(PageValue.parse) ?? .null
        switch page.outcome {
        case .page(let name):
            var context = form.mapValues(PageValue.string)
            var shown = language
            if case .object(let fields) = answer {
                context.merge(fields) { $1 }
                if case .string(let named)? = fields["language"] { shown = named }
            }
            return render(name, status: 200, context: .object(context), language: shown)
        case .location:
            guard case .object(let fields) = answer, case .string(let location)? = fields["location"],
                location.hasPrefix("/moderation")
            else { return redirect("/moderation") }
            return redirect(location)
        case .signIn:
            guard case .object(let fields) = answer, case .string(let token)? = fields["token"],
                case .number(let maxAge)? = fields["max_age"]
            else {
                return render(
                    page.failure, status: 500, error: web.message("internal_error", language: language), form: [:], language: language)
            }
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

    private func render(_ name: String, status: Int, error: String?, form: [String: String], language: String) -> Response {
        var context = form.mapValues(PageValue.string)
        if let error {
            context["error"] = .string(error)
            context["status"] = .number(Double(status))
        }
        return render(name, status: status, context: .object(context), language: language)
    }

    /// The template in `language` (English without a translation of it), with Content-Language.
    private func render(_ name: String, status: Int, context: PageValue, language: String) -> Response {
        let translated = web.translations[language]?[name] != nil
        guard let template = web.template(name, language: language) else {
            return Problem(500, "internal_error", "Something went wrong on our side.").response
        }
        return Response(
            status: status,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Content-Language", translated ? language : AcceptLanguage.fallback),
                ("Vary", "Accept-Language"),
            ],
            body: Array(template.render(context).utf8))
    }
}

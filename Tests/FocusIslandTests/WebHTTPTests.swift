// The web pages end to end (Web/WebPages.swift, web/): each page's error cases, the security
// headers, the console's cookie and CSRF token, escaping, and the database unchanged after a
// refusal. In-process and over a real socket, except what only the socket does (GET /events).
import Foundation
import Testing

@testable import FocusIsland

@Suite struct WebHTTPTests {
    static let xss = "<img src=x onerror=alert(1)>"

    /// application/x-www-form-urlencoded, as a browser sends a form.
    static func form(_ fields: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Array(
            fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
                .joined(separator: "&").utf8)
    }

    static func post(
        _ client: Client, _ path: String, _ fields: [(String, String)], cookie: String? = nil,
        headers: [String: String] = [:]
    ) throws -> HTTPResult {
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/x-www-form-urlencoded"
        if let cookie { headers["Cookie"] = "fi_console=\(cookie)" }
        return try client.send("POST", path, body: form(fields), headers: headers)
    }

    static func get(_ client: Client, _ path: String, cookie: String? = nil) throws -> HTTPResult {
        try client.send("GET", path, headers: cookie.map { ["Cookie": "fi_console=\($0)"] } ?? [:])
    }

    /// The code the mailer's step mails for a deletion request to `email`.
    static func deletionCode(_ email: String) throws -> String? {
        _ = try TestEnvironment.scalar("select app.send_deletion_codes()")
        return try TestEnvironment.scalar(
            """
            select substring(body from 'Your code is (\\d{8})') from app.outgoing_mail
            where recipient = $1 and subject ~ 'deletion code' order by id desc limit 1
            """, [email])
    }

    static func moderator(_ client: Client) throws -> Account {
        let account = try client.register("mod")
        _ = try TestEnvironment.owner().execute("insert into app.moderators (user_id, note) values ($1, 'tests')", [account.id])
        return account
    }

    /// Signs in on the console's page; the session token from its cookie.
    static func signIn(_ client: Client, _ account: Account) throws -> String {
        let result = try post(client, "/moderation/sign-in", [("email", account.email), ("password", "correct horse")])
        let cookie = result.header("set-cookie") ?? ""
        guard result.status == 303, cookie.hasPrefix("fi_console="), let end = cookie.firstIndex(of: ";") else {
            throw HTTPClientError(description: "sign-in failed: \(result.status) \(result.text)")
        }
        return String(cookie[cookie.index(cookie.startIndex, offsetBy: 11)..<end])
    }

    static func csrf(_ session: String) throws -> String? {
        try TestEnvironment.scalar(
            "select csrf_token from app.web_sessions where digest = sha256(convert_to($1, 'UTF8'))", [session])
    }

    // MARK: Headers

    @Test(arguments: Transport.allCases)
    func everyPageAndStaticFileCarriesTheStrictHeaders(transport: Transport) throws {
        for path in ["/account/delete", "/moderation/sign-in", "/web/style.css", "/web/live.js"] {
            let result = try Self.get(transport.client, path)
            #expect(result.status == 200, "\(path)")
            let csp = result.header("content-security-policy") ?? ""
            #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe"), "\(path)")
            #expect(result.header("x-frame-options") == "DENY" && result.header("cache-control") != nil, "\(path)")
        }
        #expect(try Self.get(transport.client, "/account/delete").header("content-type") == "text/html; charset=utf-8")
        #expect(try Self.get(transport.client, "/web/live.js").header("content-type") == "text/javascript; charset=utf-8")
        #expect(try Self.get(transport.client, "/web/nothing.js").status == 404)
        #expect(try transport.client.send("POST", "/web/style.css").status == 405)
        #expect(try transport.client.send("DELETE", "/account/delete").status == 405)
        #expect(try Self.get(transport.client, "/account/delete/confirm").status == 405)
    }

    // MARK: Account deletion

    @Test(arguments: Transport.allCases)
    func theDeletionFlowLeavesTheTombstoneAndSignInIsRefused(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("webdelete")
        let asked = try Self.post(client, "/account/delete", [("email", account.email)])
        #expect(asked.status == 200 && asked.text.contains("id=\"code\""))
        let unknown = try Self.post(client, "/account/delete", [("email", "nobody-\(UUID())@example.com")])
        #expect(unknown.status == asked.status)
        let code = try #require(try Self.deletionCode(account.email))
        let done = try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", code)])
        #expect(done.status == 200 && done.text.contains("What was deleted") && done.text.contains("What is kept"))
        #expect(try TestEnvironment.scalar("select display_name from app.users where id = $1", [account.id]) == "Deleted user")
        #expect(try TestEnvironment.scalar("select via from app.account_deletions where user_id = $1", [account.id]) == "web")
        let login = try client.send(
            "POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"correct horse"}"#)
        #expect(login.status == 401)
        let again = try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", code)])
        #expect(again.status == 400 && again.text.contains("wrong, expired or already used"))
    }

    /// The deletion pages in Spanish (docs/languages.md): chosen by Accept-Language, the alert's
    /// sentence too, and the code mailed in the page's language (the person left their locale at en).
    @Test(arguments: Transport.allCases)
    func theDeletionPagesAnswerInTheLanguageAsked(transport: Transport) throws {
        let client = transport.client
        let spanish = ["Accept-Language": "es-MX,es;q=0.9,en;q=0.5"]
        let account = try client.register("webborrar")
        let page = try client.send("GET", "/account/delete", headers: spanish)
        #expect(page.status == 200 && page.header("content-language") == "es")
        #expect(page.text.contains("<html lang=\"es\">") && page.text.contains("Elimina tu cuenta de Focus Island"))
        #expect(try Self.get(client, "/account/delete").text.contains("Delete your Focus Island account"))
        let asked = try Self.post(client, "/account/delete", [("email", account.email)], headers: spanish)
        #expect(asked.status == 200 && asked.text.contains("Introduce el código que te enviamos"))
        let code = try #require(try Self.deletionCode(account.email))
        let mail = try TestEnvironment.scalar(
            "select kind || ' ' || (params ->> 'language') from app.outgoing_mail where recipient = $1 order by id desc limit 1",
            [account.email])
        #expect(mail == "deletion_code es")
        let wrong = try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", "00000000")], headers: spanish)
        #expect(wrong.status == 400 && wrong.text.contains("El código es incorrecto, ha caducado o ya se ha usado."))
        let refused = try client.send("POST", "/account/delete", body: Array("email=x".utf8), headers: spanish)
        #expect(refused.status == 415 && refused.text.contains("Envía este formulario desde su página."))
        let done = try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", code)], headers: spanish)
        #expect(done.status == 200 && done.text.contains("Tu cuenta se ha eliminado") && done.text.contains("Qué se conserva"))
    }

    @Test(arguments: Transport.allCases)
    func deletionErrorsAnswerThePageAndChangeNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("webkeep")
        let requests = "select count(*) from app.account_deletion_requests where email = $1"
        let before = try TestEnvironment.scalar(requests, [account.email])
        // A JSON body, a body that is not UTF-8, a malformed email, an unknown field, another site.
        let json = try client.send("POST", "/account/delete", json: #"{"email":"\#(account.email)"}"#)
        #expect(json.status == 415 && json.header("content-type") == "text/html; charset=utf-8")
        let bytes = try client.send(
            "POST", "/account/delete", body: Array("email=%FF%FE".utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(bytes.status == 400)
        let malformed = try Self.post(client, "/account/delete", [("email", "<script>x")])
        #expect(malformed.status == 400 && malformed.text.contains("&lt;script&gt;x") && !malformed.text.contains("<script>x"))
        // A field the form does not have: refused, and its name (the request's text) not shown.
        // Letters only: the page repeats the email, whose random digits may hold any number.
        let extra = try Self.post(client, "/account/delete", [("email", account.email), ("call_Qzx_now", "1")])
        #expect(extra.status == 400 && !extra.text.contains("Qzx") && extra.text.contains("does not take"))
        let foreign = try Self.post(
            client, "/account/delete", [("email", account.email)], headers: ["Origin": "https://evil.example"])
        #expect(foreign.status == 403)
        #expect(try TestEnvironment.scalar(requests, [account.email]) == before)
        // Confirm: no code, a wrong code (counted, the form again), an unknown email alike.
        #expect(try Self.post(client, "/account/delete/confirm", [("email", account.email)]).status == 400)
        _ = try Self.post(client, "/account/delete", [("email", account.email)])
        _ = try Self.deletionCode(account.email)
        let wrong = try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", "00000000")])
        #expect(wrong.status == 400 && wrong.text.contains("id=\"code\""))
        let stranger = try Self.post(
            client, "/account/delete/confirm", [("email", "nobody-\(UUID())@example.com"), ("code", "00000000")])
        #expect(stranger.status == 400 && stranger.text.contains("wrong, expired or already used"))
        #expect(try TestEnvironment.scalar("select deleted_at is null from app.users where id = $1", [account.id]) == "t")
    }

    @Test(arguments: Transport.allCases)
    func aLinksErrorShowsOnlyAFixedSentenceByKey(transport: Transport) throws {
        let client = transport.client
        // A phishing link to the site's own page: its words must not appear there.
        let attack = "?error=Your%20account%20is%20compromised%2C%20call%20555-0100&status=500&code=urgent"
        for path in ["/account/delete", "/moderation/sign-in"] {
            let page = try Self.get(client, path + attack)
            #expect(page.status == 200, "\(path)")
            #expect(!page.text.contains("compromised") && !page.text.contains("555") && !page.text.contains("urgent"), "\(path)")
            #expect(!page.text.contains("role=\"alert\""), "an unknown key shows nothing: \(path)")
            let known = try Self.get(client, path + "?error=code_wrong")
            #expect(known.text.contains("<p class=\"error\" role=\"alert\">The code is wrong, expired or already used.</p>"), "\(path)")
        }
        // The email a link fills in is the input's value, not a message.
        let filled = try Self.get(client, "/account/delete?email=a%40example.com")
        #expect(filled.text.contains("value=\"a@example.com\"") && !filled.text.contains("role=\"alert\""))
    }

    @Test func twoConfirmationsAtOnceDeleteOnce() throws {
        let client = Transport.socket.client
        let account = try client.register("webrace")
        _ = try Self.post(client, "/account/delete", [("email", account.email)])
        let code = try #require(try Self.deletionCode(account.email))
        let statuses = try concurrently(2) { _ in
            try Self.post(client, "/account/delete/confirm", [("email", account.email), ("code", code)]).status
        }
        #expect(statuses.sorted() == [200, 400])
        #expect(try TestEnvironment.scalar("select count(*) from app.account_deletions where user_id = $1", [account.id]) == "1")
    }

    // MARK: The console

    @Test(arguments: Transport.allCases)
    func signInSetsAStrictCookieForModeratorsOnly(transport: Transport) throws {
        let client = transport.client
        let moderator = try Self.moderator(client), member = try client.register("member")
        let wrong = try Self.post(client, "/moderation/sign-in", [("email", moderator.email), ("password", "wrong horse")])
        #expect(wrong.status == 401 && wrong.header("set-cookie") == nil)
        let refused = try Self.post(client, "/moderation/sign-in", [("email", member.email), ("password", "correct horse")])
        #expect(refused.status == 403 && refused.header("set-cookie") == nil && refused.text.contains("Only moderators"))
        #expect(try Self.post(client, "/moderation/sign-in", [("email", moderator.email)]).status == 400)
        // The socket client names Host 127.0.0.1; in-process there is no Host unless given.
        let local = transport == .inProcess ? ["Host": "127.0.0.1:8080"] : [:]
        let signedIn = try Self.post(
            client, "/moderation/sign-in", [("email", moderator.email), ("password", "correct horse")], headers: local)
        let cookie = signedIn.header("set-cookie") ?? ""
        #expect(signedIn.status == 303 && signedIn.header("location") == "/moderation")
        #expect(cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Strict") && cookie.contains("; Path=/"))
        #expect(cookie.contains("; Max-Age=28800"))
        #expect(!cookie.contains("Secure"), "no Secure on 127.0.0.1 (http)")
        let remote = try Self.post(
            Transport.inProcess.client, "/moderation/sign-in", [("email", moderator.email), ("password", "correct horse")],
            headers: ["Host": "moderation.example.org"])
        #expect(remote.header("set-cookie")?.contains("; Secure") == true, "Secure everywhere else")
        #expect(!signedIn.text.contains("fi_console"), "the token is in the cookie only")
    }

    @Test(arguments: Transport.allCases)
    func consolePagesRefuseWithoutASessionAndAnswerTheirErrors(transport: Transport) throws {
        let client = transport.client
        let moderator = try Self.moderator(client), member = try client.register("member")
        let none = try Self.get(client, "/moderation")
        #expect(none.status == 303 && none.header("location") == "/moderation/sign-in")
        let appToken = try Self.get(client, "/moderation/audit", cookie: moderator.token)
        #expect(appToken.status == 303 && appToken.header("set-cookie")?.contains("Max-Age=0") == true, "an app token is no session")
        #expect(try Self.get(client, "/moderation", cookie: member.token).status == 403, "a member's token: only moderators")
        let session = try Self.signIn(client, moderator)
        let queue = try Self.get(client, "/moderation", cookie: session)
        let csrf = try #require(try Self.csrf(session))
        #expect(queue.status == 200 && queue.text.contains(csrf))
        #expect(try Self.get(client, "/moderation?status=closed", cookie: session).status == 400)
        #expect(try Self.get(client, "/moderation/people/\(UUID().uuidString.lowercased())", cookie: session).status == 404)
        #expect(try Self.get(client, "/moderation/people/nope", cookie: session).status == 400)
        #expect(try Self.get(client, "/moderation/people/\(member.id)", cookie: session).status == 200)
        #expect(try Self.get(client, "/moderation/audit", cookie: session).status == 200)
        // An expired session goes back to the sign-in page, its cookie cleared.
        let other = try Self.signIn(client, moderator)
        _ = try TestEnvironment.owner().execute(
            """
            update app.auth_tokens set created_at = now() - interval '1 hour', expires_at = now() - interval '1 minute'
            where digest = sha256(convert_to($1, 'UTF8'))
            """, [other])
        let expired = try Self.get(client, "/moderation", cookie: other)
        #expect(expired.status == 303 && expired.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(expired.header("location") == "/moderation/sign-in?error=session_ended")
        #expect(try Self.get(client, "/moderation/sign-in?error=session_ended").text.contains("Your session ended; sign in again."))
        // The role taken away: 403 with the same cookie at once.
        _ = try TestEnvironment.owner().execute("delete from app.moderators where user_id = $1", [moderator.id])
        #expect(try Self.get(client, "/moderation", cookie: session).status == 403)
    }

    @Test(arguments: Transport.allCases)
    func actionsNeedTheSessionsCSRFTokenAndAreAudited(transport: Transport) throws {
        let client = transport.client
        let moderator = try Self.moderator(client), user = try client.register("acted")
        let session = try Self.signIn(client, moderator)
        let audit = "select count(*) from app.moderation_actions where user_id = $1"
        let fields = [("action", "suspend"), ("user_id", user.id), ("until", "2099-01-01 10:00"), ("reason", "spam")]
        #expect(try Self.post(client, "/moderation/act", fields, cookie: session).status == 403)
        #expect(try Self.post(client, "/moderation/act", fields + [("csrf_token", "forged")], cookie: session).status == 403)
        let csrf = try #require(try Self.csrf(session))
        #expect(try Self.post(client, "/moderation/act", fields + [("csrf_token", csrf)], cookie: moderator.token).status == 303)
        #expect(try TestEnvironment.scalar(audit, [user.id]) == "0", "an app token in the cookie acts on nothing")
        #expect(
            try Self.post(client, "/moderation/act", [("action", "ban"), ("user_id", user.id), ("csrf_token", csrf)], cookie: session)
                .status == 400)
        #expect(
            try Self.post(
                client, "/moderation/act", [("action", "ban"), ("user_id", UUID().uuidString), ("reason", "x"), ("csrf_token", csrf)],
                cookie: session
            ).status == 404)
        #expect(try TestEnvironment.scalar(audit, [user.id]) == "0", "nothing refused is audited")
        let done = try Self.post(client, "/moderation/act", fields + [("csrf_token", csrf)], cookie: session)
        #expect(done.status == 303 && done.header("location") == "/moderation/people/\(user.id)")
        #expect(try TestEnvironment.scalar(audit, [user.id]) == "1")
        #expect(try Self.get(client, "/moderation/people/\(user.id)", cookie: session).text.contains("Suspended until 2099-01-01"))
        // Sign-out needs the token too, then ends the session.
        #expect(try Self.post(client, "/moderation/sign-out", [], cookie: session).status == 403)
        let out = try Self.post(client, "/moderation/sign-out", [("csrf_token", csrf)], cookie: session)
        #expect(out.status == 303 && out.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(try Self.get(client, "/moderation", cookie: session).status == 303)
    }

    @Test(arguments: Transport.allCases)
    func userSuppliedTextIsEscapedOnEveryPage(transport: Transport) throws {
        let client = transport.client
        let moderator = try Self.moderator(client), reporter = try client.register("reporter")
        let named = try client.register("named")
        let patch = try client.send(
            "PATCH", "/me", token: named.token, json: #"{"display_name":"<img src=x onerror=alert(1)>"}"#)
        #expect(patch.status == 200)
        _ = try client.send(
            "POST", "/users/\(named.id)/report", token: reporter.token,
            json: #"{"reason":"other","details":"<script>alert(2)</script>"}"#)
        let session = try Self.signIn(client, moderator)
        let csrf = try #require(try Self.csrf(session))
        _ = try Self.post(
            client, "/moderation/act",
            [
                ("action", "suspend"), ("user_id", named.id), ("until", "2099-01-01 10:00"),
                ("reason", "\"><b>bold</b>"), ("csrf_token", csrf),
            ], cookie: session)
        for path in ["/moderation", "/moderation/people/\(named.id)", "/moderation/audit"] {
            let page = try Self.get(client, path, cookie: session).text
            #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(path)")
            #expect(!page.contains("<img src=x") && !page.contains("<script>alert") && !page.contains("<b>bold"), "\(path)")
        }
    }

    /// The console's page listens on GET /events with its cookie; report.created reaches it.
    @Test func theSessionCookieOpensTheEventsOfTheModerator() throws {
        let client = Transport.socket.client
        let moderator = try Self.moderator(client), reporter = try client.register("reporter"), user = try client.register("user")
        let session = try Self.signIn(client, moderator)
        let start = try client.send("GET", "/events", headers: ["Cookie": "fi_console=\(session)"])
        #expect(start.status == 200)
        let next = try #require(start.json["next"] as? Int)
        _ = try client.send("POST", "/users/\(user.id)/report", token: reporter.token, json: #"{"reason":"spam"}"#)
        let events = try client.send("GET", "/events?after=\(next)&wait=5", headers: ["Cookie": "fi_console=\(session)"])
        let types = (events.json["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        #expect(types.contains("report.created"))
        #expect(try client.send("GET", "/events", headers: ["Cookie": "fi_console=unknown"]).status == 401)
    }
}

@Suite struct WebTemplateTests {
    func render(_ source: String, _ json: String) throws -> String {
        try Template(source, name: "t").render(PageValue.parse(Array(json.utf8)))
    }

    @Test func valuesAreEscapedAndSectionsFollowMustache() throws {
        #expect(
            try render("<p title=\"{{a}}\">{{a}}</p>", #"{"a":"<x> & \"y\" 'z'"}"#)
                == "<p title=\"&lt;x&gt; &amp; &quot;y&quot; &#39;z&#39;\">&lt;x&gt; &amp; &quot;y&quot; &#39;z&#39;</p>")
        #expect(try render("{{#l}}[{{n}}{{top}}]{{/l}}", #"{"l":[{"n":1},{"n":2.5}],"top":"T"}"#) == "[1T][2.5T]")
        #expect(try render("{{#b}}yes{{/b}}{{^b}}no{{/b}}", #"{"b":false}"#) == "no")
        #expect(try render("{{^l}}empty{{/l}}", #"{"l":[]}"#) == "empty")
        #expect(try render("{{u.name}}|{{#u}}{{name}}{{/u}}|{{missing.x}}", #"{"u":{"name":"Ann"}}"#) == "Ann|Ann|")
    }

    @Test func malformedTemplatesAreRefusedAtStart() {
        #expect(throws: ConfigurationError.self) { try Template("{{#a}}open", name: "t") }
        #expect(throws: ConfigurationError.self) { try Template("{{/a}}", name: "t") }
        #expect(throws: ConfigurationError.self) { try Template("{{{raw}}}", name: "t") }
        #expect(throws: ConfigurationError.self) { try Template("{{a", name: "t") }
    }

    @Test func theRepositorysPagesAllLoad() throws {
        let site = try WebSite(directory: TestEnvironment.repositoryRoot + "/web")
        for page in WebPages.all {
            #expect(site.templates[page.failure] != nil)
            #expect(site.translations["es"]?[page.failure] != nil)
        }
        #expect(site.files["style.css"] != nil && site.files["live.js"] != nil)
    }

    /// The pages and their files are lines of the route table: the router finds them as it
    /// finds the API's routes (RouterTests has the files' prefixes).
    @Test func thePagesAreRoutesOfTheTable() {
        let router = Router(routes: Routes.all)
        func page(_ method: String, _ path: String) -> String? {
            guard case .found(let route, _) = router.match(method: method, path: path), case .page(let page) = route.action
            else { return nil }
            return page.template
        }
        #expect(page("GET", "/account/delete") == "/account/delete" && page("POST", "/account/delete") == "/account/delete")
        #expect(page("HEAD", "/moderation/people/x") == "/moderation/people/{id}")
        // Split at the "/" scalar, as every route: a combining mark after it stays in the parameter.
        #expect(page("GET", "/moderation/people/\u{301}x") == "/moderation/people/{id}")
        #expect(page("GET", "/me") == nil && page("GET", "/moderation/people") == nil && page("GET", "/accounts/delete") == nil)
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/account/delete") else {
            Issue.record("DELETE /account/delete should be 405")
            return
        }
        #expect(allowed == ["GET", "POST"])
    }
}

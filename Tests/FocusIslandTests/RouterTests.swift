import Testing

// Unit tests of the parts that need no database: routing, problems, configuration.
@testable import FocusIsland

@Suite struct RouterTests {
    let router = Router(routes: Routes.all)

    @Test func findsRoutesAndPathParameters() {
        let routes = Router(routes: [Route("POST", "/focus-sessions/{id}/finish", .sql("api.finish"))])
        guard case .found(let route, let parameters) = routes.match(method: "POST", path: "/focus-sessions/abc/finish") else {
            Issue.record("no match")
            return
        }
        #expect(route.template == "/focus-sessions/{id}/finish")
        #expect(parameters == ["id": "abc"])
    }

    /// Found by schemathesis: U+192A, a combining mark, right after a slash joined it into one
    /// Character, so the path split into too few segments and answered 404 not_found.
    @Test func aCombiningMarkAfterASlashStaysAParameter() {
        guard case .found(_, let parameters) = router.match(method: "POST", path: "/friend-requests/\u{192A}\u{80}/accept")
        else {
            Issue.record("no match")
            return
        }
        #expect(parameters == ["id": "\u{192A}\u{80}"])
    }

    /// A POST or DELETE runs through api.idempotent only with an Idempotency-Key; without one the
    /// endpoint is called straight (api.idempotent would only call it, through a dynamic EXECUTE).
    @Test func onlyAKeyedWriteRunsThroughAPIIdempotent() {
        let purchase = Route("POST", "/shop/purchases", .sql("api.shop_purchases_create"), status: 201, body: .json)
        #expect(
            purchase.statement(keyed: false)?.text.contains(
                "from api.shop_purchases_create($1, api.use_language($2::jsonb), api.parse_body($3))") == true)
        #expect(purchase.statement(keyed: true)?.text.contains("from api.idempotent('api.shop_purchases_create', $1,") == true)
        #expect(purchase.statement(keyed: true)?.name != purchase.statement(keyed: false)?.name)
        let me = Route("GET", "/me", .sql("api.me_get"))
        #expect(me.statement(keyed: true)?.name == me.statement(keyed: false)?.name)
        #expect(me.statement(keyed: true)?.text.contains("idempotent") == false)
    }

    /// Every statement, keyed or not, JSON or file, reads the signed-in user after the reply's
    /// columns, as Reply expects it (docs/operations.md, "Logs").
    @Test func everyStatementReadsTheUserLast() {
        for route in Routes.all {
            for keyed in [false, true] {
                guard let text = route.statement(keyed: keyed)?.text else { continue }
                #expect(text.contains(", code, message, " + Route.userColumn + " from "), "\(route.method) \(route.template)")
            }
        }
        #expect(Reply(row: ["200", "{}", nil, nil, nil, nil, "u-1"], kind: .json)?.user == "u-1")
        #expect(Reply(row: ["200", "{}", nil, nil, nil, nil], kind: .json) == nil, "a row of the old shape is no reply")
    }

    /// Header names ignore ASCII case both ways, in a request and in an answer.
    @Test func headerNamesIgnoreCase() {
        var response = Response(status: 200, headers: [("Content-Type", "a")])
        #expect(response.header("content-type") == "a" && response.header("CONTENT-TYPE") == "a")
        #expect(response.header("Content-Typ") == nil && response.header("Content-Typf") == nil)
        response.setHeader("content-TYPE", "b")
        #expect(response.headers.filter { sameHeaderName($0.name, "Content-Type") }.count == 1)
        #expect(response.header("Content-Type") == "b")
        let request = Request(method: "GET", path: "/", headers: ["X-Request-Id": "1", "authorization": "Bearer t"])
        #expect(request.header("x-request-id") == "1" && request.header("X-REQUEST-ID") == "1")
        #expect(request.header("Authorization") == "Bearer t" && request.bearerToken == "t")
    }

    @Test func unknownPathIsNotFound() {
        for path in ["/nope", "/me/", "//me", "/me/extra", "", "me"] {
            guard case .notFound = router.match(method: "GET", path: path) else {
                Issue.record("\(path) should not match")
                continue
            }
        }
    }

    @Test func knownPathWithOtherMethodListsAllowedMethods() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "PUT", path: "/me") else {
            Issue.record("expected 405")
            return
        }
        #expect(Set(allowed) == ["GET", "PATCH", "DELETE"])
    }

    @Test func headIsAnsweredLikeGet() {
        guard case .found(let route, _) = router.match(method: "HEAD", path: "/health") else {
            Issue.record("HEAD /health should match")
            return
        }
        #expect(route.action == .health)
    }

    /// A file route owns every path under its prefix, whatever its parts, and answers GET and
    /// HEAD; its 405 says both.
    @Test func fileRoutesOwnTheirPrefix() {
        for path in ["/assets/pet/sprout.png", "/assets/", "/assets//x", "/assets/../etc/passwd"] {
            guard case .found(let route, let parameters) = router.match(method: "HEAD", path: path) else {
                Issue.record("\(path) should be an asset")
                continue
            }
            #expect(route.action == .asset && parameters["name"] == String(path.dropFirst("/assets/".count)))
        }
        guard case .found(let web, _) = router.match(method: "GET", path: "/web/style.css"), web.action == .webFile else {
            Issue.record("/web/style.css should be a web file")
            return
        }
        guard case .methodNotAllowed(let allowed) = router.match(method: "POST", path: "/assets/x.png") else {
            Issue.record("POST /assets/x.png should be 405")
            return
        }
        #expect(allowed == ["GET", "HEAD"])
        guard case .notFound = router.match(method: "GET", path: "/assets") else {
            Issue.record("/assets is no file")
            return
        }
    }

    /// GET /events is held open by its service route; anything else answers it with the SQL
    /// route of the same method and path.
    @Test func eventsAreHeldOpenAndAnsweredByTheirSQLRoute() throws {
        guard case .found(let route, _) = router.match(method: "GET", path: "/events") else {
            Issue.record("GET /events should match")
            return
        }
        #expect(route.action == .events && !route.documented)
        #expect(try router.statementRoute(behind: route).action == .sql("api.events_list"))
    }

    /// One retry policy for the blocking and the asynchronous call: serialization failures and
    /// deadlocks, three tries in all, at once; never a lost connection.
    @Test func statementsAreRetriedAfterARollbackOnly() {
        let retry = StatementRetry.statements
        #expect(retry.retries(DatabaseError(sqlState: "40001", message: ""), after: 1))
        #expect(retry.retries(DatabaseError(sqlState: "40P01", message: ""), after: 2))
        #expect(!retry.retries(DatabaseError(sqlState: "40P01", message: ""), after: 3))
        for state in ["08006", "57P01", "25006", "23505", DatabaseError.poolTimeoutState] {
            #expect(!retry.retries(DatabaseError(sqlState: state, message: ""), after: 1), "\(state)")
        }
        #expect(retry.pause(before: 2) == 0)
        let backoff = StatementRetry(states: ["40001"], attempts: 4, backoff: 1000)
        #expect([2, 3, 4].map(backoff.pause(before:)) == [1000, 2000, 4000])
    }

    @Test func everySQLRouteNamesAFunctionInSchemaAPI() {
        for route in Routes.all {
            if case .sql(let function) = route.action { #expect(function.hasPrefix("api.")) }
        }
    }

    @Test func problemJSONCarriesExtensionMembers() {
        let problem = Problem(409, "insufficient_funds", "Not enough \"coins\".", extensions: #"{"balance": 3, "price": 10}"#)
        #expect(
            problem.json
                == #"{"type":"urn:focus-island:problem:insufficient_funds","title":"Conflict","status":409,"detail":"Not enough \"coins\".","code":"insufficient_funds","balance": 3, "price": 10}"#
        )
        #expect(problem.response.header("Content-Type") == "application/problem+json")
    }

    @Test func sqlStatesMapToStatuses() {
        func status(_ state: String) -> Int { Problem(DatabaseError(sqlState: state, message: "internal words")).status }
        #expect(status("23505") == 409)
        #expect(status("23514") == 422)
        #expect(status("22P02") == 400)
        #expect(status("08006") == 503)
        #expect(status("57P01") == 503)
        #expect(status("40001") == 503)
        #expect(status("25006") == 503)
        #expect(status("42883") == 500)
        #expect(Problem(DatabaseError(sqlState: "42883", message: "internal words")).detail.contains("internal") == false)
        let raised = Problem(DatabaseError(sqlState: "PT409", message: "Taken.", detail: "email_taken"))
        #expect(raised.status == 409 && raised.code == "email_taken" && raised.detail == "Taken.")
    }

    @Test func ifNoneMatchUsesWeakComparison() {
        #expect(Pipeline.matches(ifNoneMatch: #""a", "b""#, tag: #""b""#))
        #expect(Pipeline.matches(ifNoneMatch: #"W/"b""#, tag: #""b""#))
        #expect(Pipeline.matches(ifNoneMatch: "*", tag: #""b""#))
        #expect(!Pipeline.matches(ifNoneMatch: #""a""#, tag: #""b""#))
        #expect(!Pipeline.matches(ifNoneMatch: nil, tag: #""b""#))
    }

    @Test func requestIDIsKeptOnlyWhenSafe() {
        let ids = RequestIDs()
        #expect(ids.id(from: "abc-123") == "abc-123")
        #expect(ids.id(from: "bad id\n") != "bad id\n")
        #expect(ids.id(from: String(repeating: "x", count: 200)).count < 200)
    }

    @Test func requestIDsOfOneProcessAreDistinctAndShareTheirPrefix() {
        let ids = RequestIDs()
        let made = (0..<1000).map { _ in ids.id(from: nil) }
        #expect(Set(made).count == 1000)
        #expect(Set(made.map { $0.prefix(13) }).count == 1)
        #expect(made.allSatisfy { $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f } })
        #expect(RequestIDs().id(from: nil).prefix(12) != ids.id(from: nil).prefix(12))
    }

    @Test func bearerTokenIsReadFromAuthorization() {
        #expect(Request(method: "GET", path: "/", headers: ["Authorization": "Bearer abc"]).bearerToken == "abc")
        #expect(Request(method: "GET", path: "/", headers: ["authorization": "bearer  abc "]).bearerToken == "abc")
        #expect(Request(method: "GET", path: "/", headers: ["Authorization": "Basic abc"]).bearerToken == nil)
        #expect(Request(method: "GET", path: "/", headers: ["Authorization": "Bearer"]).bearerToken == nil)
    }
}

@Suite struct ConfigurationTests {
    @Test func defaultsWorkLocally() throws {
        let configuration = try Configuration(environment: [:])
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.bodyLimit == 64 * 1024)
        #expect(configuration.migrationDatabaseURL == configuration.databaseURL)
        #expect(configuration.headTimeout == 10 && configuration.perIPConnectionLimit == 64)
        #expect(try Configuration(environment: ["HEAD_TIMEOUT": "3"]).headTimeout == 3)
        #expect(configuration.asyncDatabase)
        #expect(try Configuration(environment: ["DB_ASYNC": "off"]).asyncDatabase == false)
        #expect(try Configuration(environment: ["DB_ASYNC": "on"]).asyncDatabase)
        #expect(configuration.answerWait == 5)
        #expect(try Configuration(environment: ["DB_ANSWER_WAIT": "0"]).answerWait == 0)
        #expect(try Configuration(environment: ["DB_ANSWER_WAIT": "0.5"]).answerWait == 0.5)
    }

    @Test func clientAddressIsSetByTheServerOnly() {
        var request = Request(method: "POST", path: "/auth/login", query: ["client_ip": "203.0.113.5", "a": "1"])
        #expect(Pipeline.parameters(request, path: [:]) == ["a": "1"])
        request.clientAddress = "192.0.2.1"
        #expect(Pipeline.parameters(request, path: ["id": "x"]) == ["a": "1", "id": "x", "client_ip": "192.0.2.1"])
    }

    @Test func badValuesNameTheVariable() {
        for (name, value) in [
            ("PORT", "eighty"), ("PORT", "70000"), ("DB_POOL_SIZE", "0"),
            ("HTTP_THREADS", "-1"), ("BODY_LIMIT", "1.5"), ("LOG_FORMAT", "xml"),
            ("HEAD_TIMEOUT", "0"), ("DB_ASYNC", "yes"), ("DB_ANSWER_WAIT", "-1"), ("DB_ANSWER_WAIT", "101"),
            ("DB_ANSWER_WAIT", "soon"),
        ] {
            #expect(throws: ConfigurationError.self) { try Configuration(environment: [name: value]) }
            do {
                _ = try Configuration(environment: [name: value])
            } catch {
                #expect(error.variable == name)
                #expect(error.description.contains(name))
            }
        }
    }
}

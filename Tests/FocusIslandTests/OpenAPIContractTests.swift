import Foundation
import Testing

// docs/openapi.json against the code, where they are still written twice: an operation's paths,
// methods, security, path parameters and problem answers are generated with the route table from
// api.endpoints (scripts/lib/endpoints.py; scripts/lint holds both to it), so what is left here is
// what a person writes on each side: the success statuses and the request body the operation
// documents against its route, its codes against the registry (docs/errors.md) and against the
// codes its SQL raises. Whether answers match the schemas is schemathesis's job (scripts/test),
// against the real server.
@testable import FocusIsland

@Suite struct OpenAPIContractTests {
    typealias JSON = [String: Any]

    nonisolated(unsafe) static let document: JSON = {
        let data = FileManager.default.contents(atPath: TestEnvironment.openAPIPath) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? JSON ?? [:]
    }()
    static var paths: JSON { document["paths"] as? JSON ?? [:] }
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// Every operation: (METHOD, path template, operation object).
    static var operations: [(method: String, path: String, operation: JSON)] {
        paths.flatMap { path, item in
            ((item as? JSON) ?? [:]).compactMap { key, value in
                methods.contains(key) ? (key.uppercased(), path, value as? JSON ?? [:]) : nil
            }
        }
    }

    static func operation(_ route: Route) -> JSON? {
        (paths[route.template] as? JSON)?[route.method.lowercased()] as? JSON
    }

    /// A response object, following a $ref into components/responses.
    static func resolve(_ response: Any) -> JSON {
        guard let object = response as? JSON else { return [:] }
        if let ref = object["$ref"] as? String, ref.hasPrefix("#/components/responses/") {
            let name = String(ref.dropFirst("#/components/responses/".count))
            return ((document["components"] as? JSON)?["responses"] as? JSON)?[name] as? JSON ?? [:]
        }
        return object
    }

    /// The problem codes a response may carry: its `x-problem-codes` (scripts/lib/contract.py).
    static func codes(in response: JSON) -> [String] {
        response["x-problem-codes"] as? [String] ?? []
    }

    /// Every (status, code) an operation documents.
    static func problemCodes(_ operation: JSON) -> [(status: Int, code: String)] {
        ((operation["responses"] as? JSON) ?? [:]).flatMap { status, response in
            codes(in: resolve(response)).map { (Int(status) ?? 0, $0) }
        }
    }

    /// docs/errors.md's table: code → status.
    static let registry: [String: Int] = {
        let text = (try? String(contentsOfFile: TestEnvironment.repositoryRoot + "/docs/errors.md", encoding: .utf8)) ?? ""
        var codes: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2, let status = Int(cells[1]) { codes[cells[0].trimmingCharacters(in: ["`"])] = status }
        }
        return codes
    }()

    /// sql/api's text, one entry per `create function api.NAME(`: NAME → its text.
    static let sqlFunctions: [String: String] = {
        let folder = TestEnvironment.repositoryRoot + "/sql/api"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var functions: [String: String] = [:]
        for file in files.sorted() where file.hasSuffix(".sql") {
            let text = (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? ""
            for chunk in text.components(separatedBy: "create function api.").dropFirst() {
                let name = String(chunk.prefix { $0 != "(" })
                functions["api." + name] = chunk
            }
        }
        return functions
    }()

    /// The codes a piece of SQL raises by name: api.fail/api.problem with a literal code, the
    /// `self_code` given to api.other_user_param, and invalid_field from the field readers.
    static func raisedCodes(_ sql: String) -> Set<String> {
        let patterns = [
            #"api\.(?:fail|problem)\(\d+, '([a-z_]+)'"#, #"api\.other_user_param\([^;]*?'([a-z_]+)'\)"#,
        ]
        var codes: Set<String> = []
        for pattern in patterns {
            let regex = try! NSRegularExpression(pattern: pattern)
            for match in regex.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)) {
                if let range = Range(match.range(at: 1), in: sql) { codes.insert(String(sql[range])) }
            }
        }
        if sql.contains("api.fail_field(") || sql.contains("api.uuid_field(") || sql.contains("api.only_keys(") {
            codes.insert("invalid_field")
        }
        return codes
    }

    @Test func theDocumentIsOpenAPI31WithBearerSecurity() {
        #expect(Self.document["openapi"] as? String == "3.1.0")
        let schemes = (Self.document["components"] as? JSON)?["securitySchemes"] as? JSON
        let bearer = schemes?["bearer"] as? JSON
        #expect(bearer?["type"] as? String == "http" && bearer?["scheme"] as? String == "bearer")
    }

    /// Successes a route answers besides its own status, 200 and 304, because its function says
    /// so in its reply (`api.ok(…, status => …)`): register past an address's budget of 409
    /// answers mails a code first (202, docs/security.md).
    static let otherSuccesses: [String: Set<Int>] = [
        "POST /auth/register": [202],
        // 201 when the sign-in made the account (api.social_sign_in), 200 when it signed in to one.
        "POST /auth/apple": [201], "POST /auth/google": [201],
    ]

    @Test(arguments: Routes.all.filter(\.documented).map { "\($0.method) \($0.template)" })
    func theOperationMatchesItsRoute(_ name: String) throws {
        let route = try #require(Routes.all.filter(\.documented).first { "\($0.method) \($0.template)" == name })
        let operation = try #require(Self.operation(route), "\(name) is not documented")

        // Success status: the route's, and besides it at most 200 (a replay, already owned…),
        // 304 on ETag routes, and the statuses a function names in its reply (otherSuccesses).
        let responses = operation["responses"] as? JSON ?? [:]
        let successes = Set(responses.keys.compactMap(Int.init).filter { (200..<400).contains($0) })
        #expect(successes.contains(route.status), "\(name): \(route.status) is documented")
        #expect(
            successes.subtracting([route.status, 200, 304]).subtracting(Self.otherSuccesses[name] ?? []).isEmpty,
            "\(name): other successes \(successes)")
        for status in Self.otherSuccesses[name] ?? [] {
            #expect(successes.contains(status), "\(name): \(status) is documented")
        }

        // Body: JSON routes take application/json, image routes the image types, others none.
        let content = ((operation["requestBody"] as? JSON)?["content"] as? JSON).map { Set($0.keys) }
        switch route.body {
        case .none: #expect(content == nil, "\(name): no body")
        case .json: #expect(content == ["application/json"], "\(name): JSON body")
        case .optionalJSON:
            #expect(content == ["application/json"], "\(name): JSON body")
            #expect((operation["requestBody"] as? JSON)?["required"] as? Bool == false, "\(name): the body is optional")
        case .image: #expect(content == ["image/png", "image/jpeg"], "\(name): image body")
        }

        // Codes the function raises itself are documented on its operation.
        if case .sql(let function) = route.action {
            let own = Self.raisedCodes(Self.sqlFunctions[function] ?? "")
            let documented = Set(Self.problemCodes(operation).map(\.code))
            #expect(own.subtracting(documented).sorted() == [], "\(name): codes \(function) raises")
        }
    }

    @Test func everyDocumentedCodeIsInTheRegistryWithItsStatus() {
        for (method, path, operation) in Self.operations {
            for (status, code) in Self.problemCodes(operation) {
                #expect(Self.registry[code] == status, "\(method) \(path): \(code) is \(status) in docs/errors.md")
            }
        }
    }

    // A malformed Idempotency-Key is refused before the endpoint runs (sql/api/002_idempotency.sql):
    // every operation taking the header documents that 400, and the header states the rule.
    @Test func everyOperationWithAnIdempotencyKeyDocumentsItsMalformedKey() throws {
        let reference = "#/components/parameters/IdempotencyKey"
        let keyed = Self.operations.filter { _, _, operation in
            ((operation["parameters"] as? [JSON]) ?? []).contains { $0["$ref"] as? String == reference }
        }
        #expect(keyed.count > 30)
        for (method, path, operation) in keyed {
            let badRequest = Self.resolve(((operation["responses"] as? JSON) ?? [:])["400"] as Any)
            #expect(Self.codes(in: badRequest).contains("invalid_field"), "\(method) \(path): no 400 invalid_field")
        }
        let parameter = try #require(
            ((Self.document["components"] as? JSON)?["parameters"] as? JSON)?["IdempotencyKey"] as? JSON)
        let schema = try #require(parameter["schema"] as? JSON)
        #expect(parameter["name"] as? String == "Idempotency-Key" && parameter["in"] as? String == "header")
        #expect(schema["minLength"] as? Int == 1 && schema["maxLength"] as? Int == 255)
        #expect(schema["pattern"] as? String == #"^[\x21-\x7e]{1,255}$"#)
    }

    @Test func everyCodeSQLRaisesIsDocumentedAndTheRegistryIsCovered() {
        let documented = Set(Self.operations.flatMap { Self.problemCodes($0.operation).map(\.code) })
        let raised = Self.raisedCodes(Self.sqlFunctions.values.joined(separator: "\n"))
        #expect(!raised.isEmpty)
        // The web pages (docs/web.md) answer HTML, not operations of this document: the codes
        // only they raise are in docs/errors.md and shown on the pages (WebHTTPTests).
        let pagesOnly: Set<String> = ["csrf_failed", "invalid_deletion_code"]
        #expect(raised.subtracting(documented).subtracting(pagesOnly).sorted() == [], "codes sql/api raises that no operation documents")
        // What no operation answers: not_found and method_not_allowed are for paths and methods
        // the document has no operation for; invalid_input, conflict and constraint_violation
        // are PostgreSQL's own refusals (ErrorMapping.swift), which every route's own checks
        // come before: one answered is a bug, which schemathesis reports as undocumented.
        // request_pending is retired (asking again answers 200 with the pending request), and
        // room_friends_only (a join by someone not the host's friend answers 404 room_not_found).
        let unanswered: Set<String> = [
            "not_found", "method_not_allowed", "invalid_input", "conflict", "constraint_violation", "request_pending",
            "room_friends_only",
        ]
        #expect(Set(Self.registry.keys).subtracting(documented).sorted() == unanswered.union(pagesOnly).sorted())
    }

    @Test(arguments: Transport.allCases)
    func theServerServesTheFileWithAnETag(transport: Transport) throws {
        let client = transport.client
        let file = try #require(FileManager.default.contents(atPath: TestEnvironment.openAPIPath))
        let answer = try client.send("GET", "/openapi.json")
        #expect(answer.status == 200 && answer.body == Array(file))
        #expect(answer.header("Content-Type") == "application/json")
        #expect(answer.header("Cache-Control") == "public, max-age=300")
        let etag = try #require(answer.header("ETag"))
        let again = try client.send("GET", "/openapi.json", headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == etag)
    }
}

// Accounts and profile, end to end over real HTTP against the real database.
import Foundation
import Testing

@Suite struct AccountsHTTPTests {
    @Test func registerLoginMePatchLogout() throws {
        let client = try TestServer.client()
        let email = TestEnvironment.email("flow")
        let registered = try client.send("POST", "/auth/register",
                                         json: #"{"email":"\#(email)","password":"correct horse","display_name":"Flow"}"#)
        #expect(registered.status == 201)
        #expect(registered.header("Content-Type") == "application/json")
        #expect((registered.json["user"] as? [String: Any])?["balance"] as? Int == 0)

        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(email.uppercased())","password":"correct horse"}"#)
        #expect(login.status == 200)
        let token = try #require(login.json["token"] as? String)

        let me = try client.send("GET", "/me", token: token)
        #expect(me.status == 200)
        #expect(me.json["email"] as? String == email)
        #expect((me.json["settings"] as? [String: Any])?["show_tip_on_timer"] as? Bool == true)

        let patched = try client.send("PATCH", "/me", token: token,
                                      json: #"{"display_name":"Renamed","settings":{"show_tip_on_timer":false}}"#)
        #expect(patched.status == 200)
        #expect(patched.json["display_name"] as? String == "Renamed")
        #expect((patched.json["settings"] as? [String: Any])?["show_tip_on_timer"] as? Bool == false)

        let logout = try client.send("POST", "/auth/logout", token: token)
        #expect(logout.status == 204)
        #expect(logout.body.isEmpty)
        let after = try client.send("GET", "/me", token: token)
        #expect(after.status == 401)
        #expect(after.code == "unauthorized")
        #expect(after.header("WWW-Authenticate") == "Bearer")
        #expect(after.header("Content-Type") == "application/problem+json")
    }

    @Test func healthAndReady() throws {
        let client = try TestServer.client()
        let health = try client.send("GET", "/health")
        #expect(health.status == 200 && health.json["status"] as? String == "ok")
        let ready = try client.send("GET", "/ready")
        #expect(ready.status == 200 && ready.json["status"] as? String == "ready")
        #expect((ready.json["schema_version"] as? Int ?? 0) >= 1)
    }

    @Test(arguments: [
        (#"{"email":"nope","password":"correct horse","display_name":"X"}"#, 400, "invalid_email"),
        (#"{"email":"EMAIL","password":"short","display_name":"X"}"#, 400, "weak_password"),
        (#"{"email":"EMAIL","password":"correct horse","display_name":"  "}"#, 400, "invalid_display_name"),
        (#"{"email":"EMAIL","password":"correct horse","display_name":"\#(String(repeating: "y", count: 41))"}"#, 400, "invalid_display_name"),
        (#"{"email":"EMAIL","password":"correct horse"}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":12345678,"display_name":"X"}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":"correct horse","display_name":"X","admin":true}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":"correct horse""#, 400, "invalid_json"),
        (#"["EMAIL"]"#, 400, "invalid_json"),
        ("", 400, "invalid_json"),
    ])
    func registerRefusesBadInputAndStoresNothing(body: String, status: Int, code: String) throws {
        let client = try TestServer.client()
        let email = TestEnvironment.email("bad")
        let result = try client.send("POST", "/auth/register", json: body.replacingOccurrences(of: "EMAIL", with: email))
        #expect(result.status == status)
        #expect(result.code == code)
        #expect(result.header("Content-Type") == "application/problem+json")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test func registerNeedsAJSONContentType() throws {
        let client = try TestServer.client()
        let email = TestEnvironment.email("ctype")
        let result = try client.send("POST", "/auth/register", body: Array(#"{"email":"\#(email)","password":"correct horse","display_name":"X"}"#.utf8),
                                     headers: ["Content-Type": "text/plain"])
        #expect(result.status == 415)
        #expect(result.code == "unsupported_media_type")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test func emailIsTakenIgnoringCaseEvenWhenRacing() throws {
        let client = try TestServer.client()
        let email = TestEnvironment.email("race")
        let statuses = try concurrently(8) { index in
            let spelled = index % 2 == 0 ? email : email.uppercased()
            return try client.send("POST", "/auth/register",
                                   json: #"{"email":"\#(spelled)","password":"correct horse","display_name":"Race"}"#).status
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 7)
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "1")
        let again = try client.send("POST", "/auth/register",
                                    json: #"{"email":"\#(email.uppercased())","password":"correct horse","display_name":"R"}"#)
        #expect(again.code == "email_taken")
    }

    @Test func loginAnswersTheSameForUnknownEmailAndWrongPassword() throws {
        let client = try TestServer.client()
        let account = try client.register("same")
        let wrong = try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"wrong horse"}"#)
        let unknown = try client.send("POST", "/auth/login", json: #"{"email":"\#(TestEnvironment.email())","password":"wrong horse"}"#)
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.code == "invalid_credentials" && unknown.code == "invalid_credentials")
        #expect(wrong.json["detail"] as? String == unknown.json["detail"] as? String)
    }

    @Test func loginIsThrottledAfterTenFailures() throws {
        let client = try TestServer.client()
        let account = try client.register("throttle")
        let failures = try concurrently(12) { _ in
            try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"wrong horse"}"#).status
        }
        #expect(failures.filter { $0 == 401 }.count == 10)
        #expect(failures.filter { $0 == 429 }.count == 2)
        let throttled = try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"correct horse"}"#)
        #expect(throttled.status == 429)
        #expect(throttled.code == "too_many_attempts")
        let retryAfter = try #require(throttled.header("Retry-After").flatMap { Int($0) })
        #expect((1...900).contains(retryAfter))
        #expect(try TestEnvironment.scalar("select count(*) from app.login_failures where email = $1", [account.email]) == "10")
    }

    @Test func expiredAndUnknownTokensAre401() throws {
        let client = try TestServer.client()
        let account = try client.register("expiry")
        #expect(try client.send("GET", "/me", token: account.token).status == 200)
        try TestEnvironment.owner().execute("""
            update app.auth_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day'
            where digest = sha256(convert_to($1, 'UTF8'))
            """, [account.token])
        let expired = try client.send("GET", "/me", token: account.token)
        #expect(expired.status == 401 && expired.code == "unauthorized")
        #expect(try client.send("GET", "/me", token: "not-a-token").status == 401)
        #expect(try client.send("GET", "/me", headers: ["Authorization": "Basic dTpw"]).status == 401)
    }

    @Test(arguments: [
        (#"{"nickname":"x"}"#, "invalid_field"),
        (#"{"display_name":42}"#, "invalid_field"),
        (#"{"display_name":""}"#, "invalid_display_name"),
        (#"{"settings":{"show_tip_on_timer":"yes"}}"#, "invalid_field"),
        (#"{"settings":{"other":true}}"#, "invalid_field"),
        (#"{"settings":[]}"#, "invalid_field"),
        (#"{"display_name":"x""#, "invalid_json"),
    ])
    func patchMeRefusesBadInputAndChangesNothing(body: String, code: String) throws {
        let client = try TestServer.client()
        let account = try client.register("patch")
        let before = try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [account.id])
        let result = try client.send("PATCH", "/me", token: account.token, json: body)
        #expect(result.status == 400)
        #expect(result.code == code)
        #expect(try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [account.id]) == before)
    }

    @Test func httpLevelErrors() throws {
        let client = try TestServer.client()
        let unknown = try client.send("GET", "/nowhere")
        #expect(unknown.status == 404 && unknown.code == "not_found")
        let wrongMethod = try client.send("PUT", "/auth/login")
        #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "POST")
        let echoed = try client.send("GET", "/health", headers: ["X-Request-Id": "trace-42"])
        #expect(echoed.header("X-Request-Id") == "trace-42")
        #expect(try client.send("GET", "/health").header("X-Request-Id")?.isEmpty == false)
    }

    @Test func oversizeBodiesAre413AndStoreNothing() throws {
        let client = try TestServer.client()
        let email = TestEnvironment.email("huge")
        let huge = #"{"email":"\#(email)","password":"correct horse","display_name":"X","pad":""#
            + String(repeating: "a", count: 70_000) + #""}"#
        let announced = try client.send("POST", "/auth/register", json: huge)
        #expect(announced.status == 413 && announced.code == "body_too_large")
        let chunked = try client.send("POST", "/auth/register", json: huge, chunked: true)
        #expect(chunked.status == 413 && chunked.code == "body_too_large")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test func bodiesThatAreNotUTF8AreInvalidJSON() throws {
        let client = try TestServer.client()
        let withNul = try client.send("POST", "/auth/login", body: Array(#"{"email":"a\#u{0}b"}"#.utf8),
                                      headers: ["Content-Type": "application/json"])
        #expect(withNul.status == 400 && withNul.code == "invalid_json")
        let latin1 = try client.send("POST", "/auth/login", body: [0x7b, 0x22, 0xe9, 0x22, 0x7d],
                                     headers: ["Content-Type": "application/json; charset=utf-8"])
        #expect(latin1.status == 400 && latin1.code == "invalid_json")
    }
}

// Accounts and profile, end to end against the real database: each case in-process through
// the pipeline and over a real socket (Transport.swift), except where it says socket only.
import Foundation
import Testing

@Suite struct AccountsHTTPTests {
    @Test(arguments: Transport.allCases)
    func registerLoginMePatchLogout(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("flow")
        let registered = try client.send(
            "POST", "/auth/register",
            json: #"{"email":"\#(email)","password":"correct horse","display_name":"Flow"}"#)
        #expect(registered.status == 201)
        #expect(registered.header("Content-Type") == "application/json")
        let user = try registered.decode(AuthReply.self).user
        #expect(
            user
                == Profile(
                    id: user.id, email: email, displayName: "Flow", balance: 0,
                    selected: user.selected, settings: Settings(showTipOnTimer: true)))

        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(email.uppercased())","password":"correct horse"}"#)
        #expect(login.status == 200)
        let token = try login.decode(AuthReply.self).token

        let me = try client.send("GET", "/me", token: token)
        #expect(me.status == 200)
        let profile = try me.decode(Profile.self)
        #expect(profile.email == email)
        #expect(profile.settings == Settings(showTipOnTimer: true))

        let patched = try client.send(
            "PATCH", "/me", token: token,
            json: #"{"display_name":"Renamed","settings":{"show_tip_on_timer":false}}"#)
        #expect(patched.status == 200)
        #expect(
            try patched.decode(Profile.self)
                == Profile(
                    id: profile.id, email: email, displayName: "Renamed",
                    balance: 0, selected: profile.selected,
                    settings: Settings(showTipOnTimer: false)))

        let logout = try client.send("POST", "/auth/logout", token: token)
        #expect(logout.status == 204)
        #expect(logout.body.isEmpty)
        let after = try client.send("GET", "/me", token: token)
        #expect(after.status == 401)
        #expect(after.code == "unauthorized")
        #expect(after.header("WWW-Authenticate") == "Bearer")
        #expect(after.header("Content-Type") == "application/problem+json")
    }

    @Test(arguments: Transport.allCases)
    func healthAndReady(transport: Transport) throws {
        let client = transport.client
        let health = try client.send("GET", "/health")
        #expect(health.status == 200 && health.json["status"] as? String == "ok")
        let ready = try client.send("GET", "/ready")
        #expect(ready.status == 200 && ready.json["status"] as? String == "ready")
        #expect((ready.json["schema_version"] as? Int ?? 0) >= 1)
    }

    static let badRegistrations: [(body: String, status: Int, code: String)] = [
        (#"{"email":"nope","password":"correct horse","display_name":"X"}"#, 400, "invalid_email"),
        (#"{"email":"EMAIL","password":"short","display_name":"X"}"#, 400, "weak_password"),
        (#"{"email":"EMAIL","password":"correct horse","display_name":"  "}"#, 400, "invalid_display_name"),
        (
            #"{"email":"EMAIL","password":"correct horse","display_name":"\#(String(repeating: "y", count: 41))"}"#, 400,
            "invalid_display_name"
        ),
        (#"{"email":"EMAIL","password":"correct horse"}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":12345678,"display_name":"X"}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":"correct horse","display_name":"X","admin":true}"#, 400, "invalid_field"),
        (#"{"email":"EMAIL","password":"correct horse""#, 400, "invalid_json"),
        (#"["EMAIL"]"#, 400, "invalid_json"),
        ("", 400, "invalid_json"),
    ]

    @Test(arguments: Transport.allCases, badRegistrations)
    func registerRefusesBadInputAndStoresNothing(transport: Transport, bad: (body: String, status: Int, code: String)) throws {
        let client = transport.client
        let email = TestEnvironment.email("bad")
        let result = try client.send("POST", "/auth/register", json: bad.body.replacingOccurrences(of: "EMAIL", with: email))
        #expect(result.status == bad.status)
        #expect(result.code == bad.code)
        #expect(result.header("Content-Type") == "application/problem+json")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test(arguments: Transport.allCases)
    func registerNeedsAJSONContentType(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("ctype")
        let result = try client.send(
            "POST", "/auth/register", body: Array(#"{"email":"\#(email)","password":"correct horse","display_name":"X"}"#.utf8),
            headers: ["Content-Type": "text/plain"])
        #expect(result.status == 415)
        #expect(result.code == "unsupported_media_type")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test(arguments: Transport.allCases)
    func emailIsTakenIgnoringCaseEvenWhenRacing(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("race")
        let statuses = try concurrently(8) { index in
            let spelled = index % 2 == 0 ? email : email.uppercased()
            return try client.send(
                "POST", "/auth/register",
                json: #"{"email":"\#(spelled)","password":"correct horse","display_name":"Race"}"#
            ).status
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 7)
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "1")
        let again = try client.send(
            "POST", "/auth/register",
            json: #"{"email":"\#(email.uppercased())","password":"correct horse","display_name":"R"}"#)
        #expect(again.code == "email_taken")
    }

    @Test(arguments: Transport.allCases)
    func loginAnswersTheSameForUnknownEmailAndWrongPassword(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("same")
        let wrong = try client.send("POST", "/auth/login", json: #"{"email":"\#(account.email)","password":"wrong horse"}"#)
        let unknown = try client.send("POST", "/auth/login", json: #"{"email":"\#(TestEnvironment.email())","password":"wrong horse"}"#)
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.code == "invalid_credentials" && unknown.code == "invalid_credentials")
        #expect(wrong.json["detail"] as? String == unknown.json["detail"] as? String)
    }

    @Test(arguments: Transport.allCases)
    func loginIsThrottledAfterTenFailures(transport: Transport) throws {
        let client = transport.client
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

    @Test(arguments: Transport.allCases)
    func loginFailuresAreCountedByTheAddressTheServerSaw(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("address")
        // A client_ip of the client's own in the query is dropped: only the server sets it.
        let wrong = try client.send(
            "POST", "/auth/login?client_ip=203.0.113.5",
            json: #"{"email":"\#(account.email)","password":"wrong horse"}"#)
        #expect(wrong.code == "invalid_credentials")
        let recorded = try TestEnvironment.scalar(
            "select coalesce(host(client_ip), 'unknown') from app.login_failures where email = $1", [account.email])
        #expect(recorded == (transport == .socket ? "127.0.0.1" : "unknown"))
    }

    @Test(arguments: Transport.allCases)
    func overlongAndDeeplyNestedBodiesAre400(transport: Transport) throws {
        let client = transport.client
        let deep = String(repeating: "[", count: 30000) + String(repeating: "]", count: 30000)
        let nested = try client.send("POST", "/auth/login", json: deep)
        #expect(nested.status == 400 && nested.code == "invalid_json")
        let email = (0..<512).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined() + "@example.com"
        let long = try client.send("POST", "/auth/login", json: #"{"email":"\#(email)","password":"wrong horse"}"#)
        #expect(long.status == 400 && long.code == "invalid_field")
        #expect(try TestEnvironment.scalar("select count(*) from app.login_failures where length(email) > 254") == "0")
    }

    @Test(arguments: Transport.allCases)
    func expiredAndUnknownTokensAre401(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("expiry")
        #expect(try client.send("GET", "/me", token: account.token).status == 200)
        try TestEnvironment.owner().execute(
            """
            update app.auth_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day'
            where digest = sha256(convert_to($1, 'UTF8'))
            """, [account.token])
        let expired = try client.send("GET", "/me", token: account.token)
        #expect(expired.status == 401 && expired.code == "unauthorized")
        #expect(try client.send("GET", "/me", token: "not-a-token").status == 401)
        #expect(try client.send("GET", "/me", headers: ["Authorization": "Basic dTpw"]).status == 401)
    }

    static let badPatches: [(body: String, code: String)] = [
        (#"{"nickname":"x"}"#, "invalid_field"),
        (#"{"display_name":42}"#, "invalid_field"),
        (#"{"display_name":""}"#, "invalid_display_name"),
        (#"{"settings":{"show_tip_on_timer":"yes"}}"#, "invalid_field"),
        (#"{"settings":{"other":true}}"#, "invalid_field"),
        (#"{"settings":[]}"#, "invalid_field"),
        (#"{"display_name":"x""#, "invalid_json"),
        (#"{"bio":42}"#, "invalid_field"),
        (#"{"bio":"\#(String(repeating: "b", count: 161))"}"#, "invalid_field"),
        (#"{"bio":"two\nlines"}"#, "invalid_field"),
        (#"{"bio":"right-to-left \u202Etxet"}"#, "invalid_field"),
        (#"{"bio":"0ff1c1al account"}"#, "inappropriate_bio"),
        (#"{"bio":"fine words","display_name":""}"#, "invalid_display_name"),
        (#"{"daily_goal_minutes":0}"#, "invalid_field"),
        (#"{"daily_goal_minutes":1441}"#, "invalid_field"),
        (#"{"daily_goal_minutes":"45"}"#, "invalid_field"),
        (#"{"daily_goal_minutes":12.5}"#, "invalid_field"),
    ]

    /// The daily goal: set and read back on GET /me and in GET /me/stats against today's
    /// minutes (none yet: not reached), kept by a PATCH without it, cleared by null.
    @Test(arguments: Transport.allCases)
    func dailyGoalIsSetReadBackInTheStatsAndCleared(transport: Transport) throws {
        let client = transport.client
        let owner = try client.register("goal")
        #expect(try client.send("GET", "/me/stats", token: owner.token).json["daily_goal_reached"] is NSNull)
        let set = try client.send("PATCH", "/me", token: owner.token, json: #"{"daily_goal_minutes":45}"#)
        #expect(set.status == 200 && set.json["daily_goal_minutes"] as? Int == 45)
        let stats = try client.send("GET", "/me/stats", token: owner.token)
        #expect(stats.json["daily_goal_minutes"] as? Int == 45 && stats.json["daily_goal_reached"] as? Bool == false)
        #expect(try client.send("PATCH", "/me", token: owner.token, json: #"{"bio":"Goals"}"#).json["daily_goal_minutes"] as? Int == 45)
        #expect(
            try client.send("PATCH", "/me", token: owner.token, json: #"{"daily_goal_minutes":null}"#).json["daily_goal_minutes"] is NSNull)
        #expect(try client.send("GET", "/me/stats", token: owner.token).json["daily_goal_minutes"] is NSNull)
    }

    /// The bio: set, read back in GET /me and by a friend on GET /users/{id} (not in the friends
    /// list, not by anyone else), kept by a PATCH without it, cleared by "" and by null.
    @Test(arguments: Transport.allCases)
    func bioIsSetReadBackShownToFriendsAndCleared(transport: Transport) throws {
        let client = transport.client
        let owner = try client.register("bio"), friend = try client.register("biofriend"), stranger = try client.register("biostranger")
        #expect(try client.send("GET", "/me", token: owner.token).json["bio"] is NSNull)

        let set = try client.send("PATCH", "/me", token: owner.token, json: #"{"bio":"  Cafe\u0301 mornings, slow focus. "}"#)
        #expect(set.status == 200)
        #expect(set.json["bio"] as? String == "Caf\u{E9} mornings, slow focus.")
        #expect(try client.send("GET", "/me", token: owner.token).json["bio"] as? String == "Caf\u{E9} mornings, slow focus.")
        let renamed = try client.send("PATCH", "/me", token: owner.token, json: #"{"display_name":"Bio Owner"}"#)
        #expect(renamed.json["bio"] as? String == "Caf\u{E9} mornings, slow focus.")

        #expect(try client.send("POST", "/friend-requests", token: owner.token, json: #"{"email":"\#(friend.email)"}"#).status == 201)
        #expect(try client.send("POST", "/friend-requests", token: friend.token, json: #"{"email":"\#(owner.email)"}"#).status == 200)
        let island = try client.send("GET", "/users/\(owner.id)", token: friend.token)
        #expect(island.status == 200)
        #expect(island.json["bio"] as? String == "Caf\u{E9} mornings, slow focus.")
        let list = try client.send("GET", "/friends", token: friend.token).json["friends"] as? [[String: Any]] ?? []
        #expect(list.count == 1 && list.allSatisfy { $0["bio"] == nil })
        #expect(try client.send("GET", "/users/\(owner.id)", token: stranger.token).code == "user_not_found")

        #expect(try client.send("PATCH", "/me", token: owner.token, json: #"{"bio":""}"#).json["bio"] is NSNull)
        #expect(try client.send("PATCH", "/me", token: owner.token, json: #"{"bio":"Back"}"#).json["bio"] as? String == "Back")
        #expect(try client.send("PATCH", "/me", token: owner.token, json: #"{"bio":null}"#).json["bio"] is NSNull)
        #expect(try TestEnvironment.scalar("select coalesce(bio, 'null') from app.users where id = $1", [owner.id]) == "null")
    }

    @Test(arguments: Transport.allCases, badPatches)
    func patchMeRefusesBadInputAndChangesNothing(transport: Transport, bad: (body: String, code: String)) throws {
        let client = transport.client
        let account = try client.register("patch")
        #expect(try client.send("PATCH", "/me", token: account.token, json: #"{"bio":"Kept as it was"}"#).status == 200)
        let before = try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [account.id])
        let result = try client.send("PATCH", "/me", token: account.token, json: bad.body)
        #expect(result.status == 400)
        #expect(result.code == bad.code)
        #expect(try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [account.id]) == before)
    }

    @Test(arguments: Transport.allCases)
    func httpLevelErrors(transport: Transport) throws {
        let client = transport.client
        let unknown = try client.send("GET", "/nowhere")
        #expect(unknown.status == 404 && unknown.code == "not_found")
        let wrongMethod = try client.send("PUT", "/auth/login")
        #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "POST")
        let echoed = try client.send("GET", "/health", headers: ["X-Request-Id": "trace-42"])
        #expect(echoed.header("X-Request-Id") == "trace-42")
        #expect(try client.send("GET", "/health").header("X-Request-Id")?.isEmpty == false)
    }

    /// An announced oversize body: over the socket libmicrohttpd's first callback answers from
    /// Content-Length before reading the body; in-process the pipeline's own length check does.
    @Test(arguments: Transport.allCases)
    func oversizeBodiesAre413AndStoreNothing(transport: Transport) throws {
        let email = TestEnvironment.email("huge")
        let announced = try transport.client.send("POST", "/auth/register", json: Self.hugeRegistration(email))
        #expect(announced.status == 413 && announced.code == "body_too_large")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    /// Socket only: a chunked body has no length to announce, so the server counts it while
    /// reading and discards it past the limit; only a real connection carries chunks.
    @Test func chunkedOversizeBodiesAre413AndStoreNothing() throws {
        let email = TestEnvironment.email("huge")
        let chunked = try TestServer.client().send(
            "POST", "/auth/register", headers: ["Content-Type": "application/json"],
            body: Array(Self.hugeRegistration(email).utf8), chunked: true)
        #expect(chunked.status == 413 && chunked.code == "body_too_large")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    /// A valid registration padded past the 64 KiB default limit.
    static func hugeRegistration(_ email: String) -> String {
        #"{"email":"\#(email)","password":"correct horse","display_name":"X","pad":""#
            + String(repeating: "a", count: 70_000) + #""}"#
    }

    @Test(arguments: Transport.allCases)
    func bodiesThatAreNotUTF8AreInvalidJSON(transport: Transport) throws {
        let client = transport.client
        let withNul = try client.send(
            "POST", "/auth/login", body: Array(#"{"email":"a\#u{0}b"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        #expect(withNul.status == 400 && withNul.code == "invalid_json")
        let latin1 = try client.send(
            "POST", "/auth/login", body: [0x7b, 0x22, 0xe9, 0x22, 0x7d],
            headers: ["Content-Type": "application/json; charset=utf-8"])
        #expect(latin1.status == 400 && latin1.code == "invalid_json")
    }
}

import Foundation
import Testing

// Sign in with Apple and Google end to end: a server of its own (the same Application) whose
// key sets, code exchange and revoke endpoint are a local HTTPS peer (Tests/system/social-peer.py,
// with a test CA), and ID tokens this test signs with the peer's keys. Accepted tokens sign in
// (201 then 200) and link; each broken one (expired, wrong audience, wrong issuer, wrong nonce,
// unknown key, bad signature) is refused with its code and makes nothing; erasure's revocation
// reaches the peer through the sender.
@testable import FocusIsland

/// The peer and the server that trusts it, started once for the suite.
enum SocialServer {
    static let appleClient = "app.focusisland.ios"
    static let googleClient = "123-focus.apps.googleusercontent.com"

    struct Running: @unchecked Sendable {
        let peer: Process
        let peerInput: Pipe
        let directory: String
        let port: Int
        let application: Application
        let settings: SocialSettings
        let keys: [String: SigningKey]
        var client: HTTPClient { HTTPClient(port: application.server.port) }
    }

    static let shared: Result<Running, Error> = Result {
        let directory = NSTemporaryDirectory() + "social-peer-" + UUID().uuidString
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: TestEnvironment.repositoryRoot + "/.venv/bin/python")
        peer.arguments = [TestEnvironment.repositoryRoot + "/Tests/system/social-peer.py", directory]
        let input = Pipe()
        peer.standardInput = input  // the peer runs until this process ends and the pipe closes
        try peer.run()
        let deadline = Date().addingTimeInterval(30)
        var port: Int?
        while port == nil && Date() < deadline && peer.isRunning {
            if let data = FileManager.default.contents(atPath: directory + "/peer.json"),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                port = object["port"] as? Int
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        guard let port else { throw TestSetupError(description: "social-peer.py did not start (run scripts/setup)") }
        let base = "https://127.0.0.1:\(port)"
        var social = SocialSettings()
        social.apple = .init(clientIDs: [appleClient, "app.focusisland.web"], jwksURL: base + "/apple/keys")
        social.google = .init(clientIDs: [googleClient], jwksURL: base + "/google/keys")
        social.caFile = directory + "/ca.pem"
        social.appleTokenURL = base + "/apple/token"
        social.appleRevokeURL = base + "/apple/revoke"
        social.appleKey = .init(teamID: "TEAM123456", keyID: "SIWAKEY123", keyFile: directory + "/apple-signin.p8")
        social.unknownKeyInterval = 2
        var configuration = Configuration.defaults
        configuration.databaseURL = try TestEnvironment.apiURL()
        configuration.listenDatabaseURL = try TestEnvironment.listenURL()
        configuration.port = 0
        configuration.poolSize = 4
        configuration.httpThreads = 4
        configuration.logFormat = .off
        configuration.preparedStatements = ProcessInfo.processInfo.environment["DB_PREPARED_STATEMENTS"] != "off"
        configuration.assetDirectory = try TestEnvironment.sqlDirectory() + "/../assets"
        configuration.openAPIFile = TestEnvironment.openAPIPath
        configuration.webDirectory = TestEnvironment.repositoryRoot + "/web"
        configuration.social = social
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        try application.start()
        var keys: [String: SigningKey] = [:]
        for (kid, file) in [("apple-1", "rsa-apple.pem"), ("google-1", "rsa-google.pem"), ("rotated-1", "rsa-rotated.pem")] {
            let pem = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            keys[kid] = try SigningKey(pem: pem, algorithm: .rs256)
        }
        return Running(
            peer: peer, peerInput: input, directory: directory, port: port, application: application, settings: social,
            keys: keys)
    }

    static func running() throws -> Running { try shared.get() }

    /// What the peer saw: key fetches, exchanged codes, revoked tokens.
    static func log() throws -> [String: Any] {
        let running = try running()
        let answer = try PushHTTP(caFile: running.settings.caFile).send(
            method: "GET", url: "https://127.0.0.1:\(running.port)/control/log", headers: [], body: [])
        return JSONValue.object(answer.body) ?? [:]
    }

    /// An ID token as `provider` would make it for `subject`, signed by the key of `kid` (or,
    /// for a bad signature, by `signer`'s key under `kid`'s name), with `changes` to its claims
    /// (NSNull removes one).
    static func idToken(
        _ provider: IdentityProvider, subject: String, email: String?, nonce: String? = nil, kid: String? = nil,
        signer: String? = nil, changes: [String: Any] = [:]
    ) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] =
            switch provider {
            case .apple:
                [
                    "iss": "https://appleid.apple.com", "aud": appleClient, "sub": subject, "iat": now, "exp": now + 600,
                    "email_verified": "true", "is_private_email": email?.contains("privaterelay") == true ? "true" : "false",
                    "nonce_supported": true, "auth_time": now,
                ]
            case .google:
                [
                    "iss": "https://accounts.google.com", "aud": googleClient, "azp": googleClient, "sub": subject,
                    "iat": now, "exp": now + 3600, "email_verified": true, "name": "Gus Goggle",
                ]
            }
        if let email { claims["email"] = email }
        if let nonce { claims["nonce"] = provider == .apple ? FocusIsland.SHA256.hex(nonce) : nonce }
        for (name, value) in changes { claims[name] = value is NSNull ? nil : value }
        let kid = kid ?? (provider == .apple ? "apple-1" : "google-1")
        let key = try #require(try running().keys[signer ?? kid])
        return try JWT.make(header: ["kid": kid], claims: claims, key: key)
    }

    static func send(_ method: String, _ path: String, token: String? = nil, json: [String: Any]) throws -> HTTPResult {
        let body = try JSONSerialization.data(withJSONObject: json)
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try running().client.send(method, path, headers: headers, body: Array(body))
    }

    static func users(_ email: String) throws -> String? {
        try TestEnvironment.scalar("select count(*)::text from app.users where email = $1", [email])
    }
}

@Suite(.serialized) struct SocialSignInHTTPTests {
    static func unique(_ name: String) -> String { "\(name)-\(UInt64.random(in: 0 ... .max))" }

    /// A first Apple sign-in (a relay address, the name the app sent, an authorization code)
    /// makes the account, verified, with the exchanged refresh token kept; the next one signs in
    /// to it; the token it answers works.
    @Test func appleSignsUpThenSignsIn() throws {
        let subject = Self.unique("001"), email = Self.unique("relay") + "@privaterelay.appleid.com"
        let token = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n-1")
        let first = try SocialServer.send(
            "POST", "/auth/apple",
            json: ["id_token": token, "nonce": "n-1", "display_name": "Relay Rita", "authorization_code": "good-" + subject])
        #expect(first.status == 201, "\(first.text)")
        let user = first.json["user"] as? [String: Any] ?? [:]
        #expect(user["email"] as? String == email && user["email_verified"] as? Bool == true)
        #expect(user["display_name"] as? String == "Relay Rita")
        let exchanged = try SocialServer.log()["exchanged"] as? [[String: Any]] ?? []
        let refresh = exchanged.first { $0["code"] as? String == "good-" + subject }?["refresh_token"] as? String
        #expect(refresh != nil && exchanged.last?["client_id"] as? String == SocialServer.appleClient)
        #expect(
            try TestEnvironment.scalar("select apple_refresh_token from app.user_identities where subject = $1", [subject])
                == refresh)
        let me = try TestServer.client().send("GET", "/me", headers: ["Authorization": "Bearer \(first.json["token"] as? String ?? "")"])
        #expect(me.status == 200)

        let again = try SocialServer.send(
            "POST", "/auth/apple",
            json: ["id_token": try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n-2"), "nonce": "n-2"])
        #expect(again.status == 200 && (again.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)
        #expect(try SocialServer.users(email) == "1")
    }

    /// Each broken token is refused with its code, before anything is written.
    @Test func brokenTokensAreRefusedWithTheirCodes() throws {
        let email = Self.unique("broken") + "@example.com", subject = Self.unique("001")
        let now = Int(Date().timeIntervalSince1970)
        let cases: [(String, String, Int, String)] = [
            (
                "expired", try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", changes: ["exp": now - 120]),
                401, "identity_token_expired"
            ),
            (
                "wrong audience",
                try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", changes: ["aud": "com.other.app"]),
                401, "identity_token_wrong_audience"
            ),
            (
                "wrong issuer",
                try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", changes: ["iss": "https://evil.example"]),
                401, "identity_token_wrong_issuer"
            ),
            (
                "wrong nonce", try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "another"),
                401, "identity_nonce_mismatch"
            ),
            (
                "raw nonce, not its hash", try SocialServer.idToken(.apple, subject: subject, email: email, changes: ["nonce": "n"]),
                401, "identity_nonce_mismatch"
            ),
            (
                "unknown key",
                try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", kid: "nobody-1", signer: "apple-1"),
                401, "identity_token_unknown_key"
            ),
            (
                "bad signature", try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", signer: "google-1"),
                401, "identity_token_invalid"
            ),
            (
                "issued in the future",
                try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", changes: ["iat": now + 600]),
                401, "identity_token_invalid"
            ),
            (
                "a Google token", try SocialServer.idToken(.google, subject: subject, email: email, nonce: "n"),
                401, "identity_token_unknown_key"
            ),
            ("not a JWT", "not.a-jwt", 401, "identity_token_invalid"),
        ]
        for (name, token, status, code) in cases {
            let answer = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token, "nonce": "n"])
            #expect(answer.status == status && answer.code == code, "\(name): \(answer.status) \(answer.text)")
        }
        // Google's issuer rule too, with Google's own key: Apple's issuer at /auth/google.
        let appleIssued = try SocialServer.idToken(.google, subject: subject, email: email, changes: ["iss": "https://appleid.apple.com"])
        let google = try SocialServer.send("POST", "/auth/google", json: ["id_token": appleIssued])
        #expect(google.status == 401 && google.code == "identity_token_wrong_issuer", "\(google.text)")
        let wrongNonce = try SocialServer.send(
            "POST", "/auth/google",
            json: ["id_token": try SocialServer.idToken(.google, subject: subject, email: email, nonce: "a"), "nonce": "b"])
        #expect(wrongNonce.status == 401 && wrongNonce.code == "identity_nonce_mismatch")
        #expect(try SocialServer.users(email) == "0", "nothing was made")
        #expect(try TestEnvironment.scalar("select count(*)::text from app.user_identities where subject = $1", [subject]) == "0")
    }

    /// The body's form: what verification needs is missing (SQL names the field), a forged
    /// ?identity= is dropped, an authorization code Apple refuses is 400.
    @Test func theBodysFormAndAForgedIdentity() throws {
        let email = Self.unique("form") + "@example.com", subject = Self.unique("001")
        let token = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n")
        let noNonce = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token])
        #expect(noNonce.status == 400 && noNonce.code == "invalid_field" && noNonce.json["field"] as? String == "nonce")
        let noToken = try SocialServer.send("POST", "/auth/google", json: ["nonce": "n"])
        #expect(noToken.status == 400 && noToken.code == "invalid_field" && noToken.json["field"] as? String == "id_token")
        let wrongType = try SocialServer.send("POST", "/auth/google", json: ["id_token": 12])
        #expect(wrongType.status == 400 && wrongType.code == "invalid_field")
        let forged = #"{"provider":"google","subject":"s","email":"\#(email)","email_verified":true,"client_id":"x"}"#
        let query = forged.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let forgedAnswer = try SocialServer.running().client.send(
            "POST", "/auth/google?identity=" + query, headers: ["Content-Type": "application/json"], body: Array(#"{}"#.utf8))
        #expect(forgedAnswer.status == 400 && forgedAnswer.code == "invalid_field", "a client's identity is dropped")
        let notJSON = try SocialServer.running().client.send(
            "POST", "/auth/apple", headers: ["Content-Type": "application/json"], body: Array("[1]".utf8))
        #expect(notJSON.status == 400 && notJSON.code == "invalid_json")
        let badCode = try SocialServer.send(
            "POST", "/auth/apple", json: ["id_token": token, "nonce": "n", "authorization_code": "bad-code"])
        #expect(badCode.status == 400 && badCode.code == "invalid_authorization_code")
        #expect(try SocialServer.users(email) == "0")
        // The shared test server has no client ids: its routes say so once given a token.
        let off = try TestServer.client().send(
            "POST", "/auth/google", headers: ["Content-Type": "application/json"],
            body: Array(#"{"id_token":"\#(token)"}"#.utf8))
        #expect(off.status == 503 && off.code == "sign_in_provider_unavailable")
    }

    /// An email an account has links nothing: 409; the owner, signed in with the password, links
    /// Google (then Apple), after which each signs in to that account; one account per identity.
    @Test func aMatchingEmailLinksOnlyByItsSignedInOwner() throws {
        let ada = try Transport.socket.client.register("socialada")
        let subject = Self.unique("g"), appleSubject = Self.unique("001")
        let google = try SocialServer.idToken(.google, subject: subject, email: ada.email.uppercased())
        let refused = try SocialServer.send("POST", "/auth/google", json: ["id_token": google])
        #expect(refused.status == 409 && refused.code == "account_exists_link_required", "\(refused.text)")
        #expect(refused.json["provider"] as? String == "google")

        let anonymous = try SocialServer.send("POST", "/me/identities", json: ["provider": "google", "id_token": google])
        #expect(anonymous.status == 401 && anonymous.code == "unauthorized")
        let linked = try SocialServer.send("POST", "/me/identities", token: ada.token, json: ["provider": "google", "id_token": google])
        #expect(linked.status == 201 && linked.json["provider"] as? String == "google", "\(linked.text)")
        #expect(Set(linked.json.keys) == ["provider", "email", "linked_at", "last_sign_in_at"])
        let again = try SocialServer.send("POST", "/me/identities", token: ada.token, json: ["provider": "google", "id_token": google])
        #expect(again.status == 200)
        let apple = try SocialServer.idToken(
            .apple, subject: appleSubject, email: Self.unique("r") + "@privaterelay.appleid.com", nonce: "n")
        let appleLinked = try SocialServer.send(
            "POST", "/me/identities", token: ada.token, json: ["provider": "apple", "id_token": apple, "nonce": "n"])
        #expect(appleLinked.status == 201)
        let badLink = try SocialServer.send(
            "POST", "/me/identities", token: ada.token,
            json: [
                "provider": "apple", "id_token": try SocialServer.idToken(.apple, subject: appleSubject, email: nil, nonce: "x"),
                "nonce": "n",
            ])
        #expect(badLink.status == 401 && badLink.code == "identity_nonce_mismatch")

        let signedIn = try SocialServer.send("POST", "/auth/google", json: ["id_token": google])
        #expect(signedIn.status == 200 && (signedIn.json["user"] as? [String: Any])?["id"] as? String == ada.id)
        let list = try TestServer.client().send("GET", "/me/identities", headers: ["Authorization": "Bearer \(ada.token)"])
        #expect((list.json["identities"] as? [[String: Any]])?.compactMap { $0["provider"] as? String } == ["google", "apple"])
        #expect(!list.text.contains(subject) && !list.text.contains(appleSubject), "never a subject")

        let bo = try Transport.socket.client.register("socialbo")
        let elsewhere = try SocialServer.send("POST", "/me/identities", token: bo.token, json: ["provider": "google", "id_token": google])
        #expect(elsewhere.status == 409 && elsewhere.code == "identity_linked_elsewhere")
        let second = try SocialServer.send(
            "POST", "/me/identities", token: ada.token,
            json: ["provider": "google", "id_token": try SocialServer.idToken(.google, subject: Self.unique("g"), email: ada.email)])
        #expect(second.status == 409 && second.code == "identity_provider_linked")
        let unknownProvider = try SocialServer.send(
            "POST", "/me/identities", token: bo.token, json: ["provider": "myspace", "id_token": google])
        #expect(unknownProvider.status == 400 && unknownProvider.code == "invalid_field")
    }

    /// A key the set lacks is looked for again at most once per interval (2 s here, a minute by
    /// default): once the provider publishes it, tokens signed with it pass.
    @Test func aRotatedKeyIsFetchedOnceTheIntervalPassed() throws {
        let subject = Self.unique("001"), email = Self.unique("rotate") + "@example.com"
        let token = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n", kid: "rotated-1")
        _ = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token, "nonce": "n"])
        Thread.sleep(forTimeInterval: 2.1)
        let first = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token, "nonce": "n"])
        #expect(first.code == "identity_token_unknown_key")
        let fetches = (try SocialServer.log()["key_fetches"] as? [String: Int])?["apple"]
        let soon = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token, "nonce": "n"])
        #expect(soon.code == "identity_token_unknown_key")
        #expect((try SocialServer.log()["key_fetches"] as? [String: Int])?["apple"] == fetches, "not fetched again within the interval")
        let running = try SocialServer.running()
        _ = try PushHTTP(caFile: running.settings.caFile).send(
            method: "POST", url: "https://127.0.0.1:\(running.port)/control/rotate", headers: [], body: [])
        Thread.sleep(forTimeInterval: 2.1)
        let accepted = try SocialServer.send("POST", "/auth/apple", json: ["id_token": token, "nonce": "n"])
        #expect(accepted.status == 201, "\(accepted.text)")
    }

    /// DELETE /me with a fresh token of the account's identity (it has no password) erases it;
    /// erasure queues the Apple refresh token; the sender posts it to the revoke endpoint with a
    /// client secret the peer verifies, and the queue empties.
    @Test func erasureRevokesTheAppleRefreshToken() throws {
        let subject = Self.unique("001"), email = Self.unique("erase") + "@privaterelay.appleid.com"
        let token = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "n")
        let made = try SocialServer.send(
            "POST", "/auth/apple", json: ["id_token": token, "nonce": "n", "authorization_code": "good-" + subject])
        #expect(made.status == 201)
        let appToken = try #require(made.json["token"] as? String)
        let refresh = try #require(
            try TestEnvironment.scalar("select apple_refresh_token from app.user_identities where subject = $1", [subject]))
        // DELETE /me: the account has no password it knows; a fresh token of its identity proves it.
        let noProof = try SocialServer.send("DELETE", "/me", token: appToken, json: [:])
        #expect(noProof.status == 400 && noProof.code == "invalid_field")
        let stranger = try SocialServer.idToken(.google, subject: Self.unique("g"), email: email)
        let notLinked = try SocialServer.send(
            "DELETE", "/me", token: appToken, json: ["provider": "google", "id_token": stranger])
        #expect(notLinked.status == 403 && notLinked.code == "identity_not_linked")
        let expired = try SocialServer.idToken(
            .apple, subject: subject, email: email, nonce: "d", changes: ["exp": Int(Date().timeIntervalSince1970) - 600])
        let old = try SocialServer.send("DELETE", "/me", token: appToken, json: ["provider": "apple", "id_token": expired, "nonce": "d"])
        #expect(old.status == 401 && old.code == "identity_token_expired")
        #expect(try SocialServer.users(email) == "1", "nothing changed")
        let fresh = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "d")
        let deleted = try SocialServer.send("DELETE", "/me", token: appToken, json: ["provider": "apple", "id_token": fresh, "nonce": "d"])
        #expect(deleted.status == 204, "\(deleted.text)")
        #expect(try TestEnvironment.scalar("select count(*)::text from app.apple_revocations where refresh_token = $1", [refresh]) == "1")

        let running = try SocialServer.running()
        let sender = try AppleRevokeSender(
            settings: running.settings, conninfo: try TestEnvironment.apiURL(), logger: Logger(format: .off), pollInterval: 0.05)
        #expect(try sender.run(once: true) >= 1)
        let revoked = try SocialServer.log()["revoked"] as? [[String: Any]] ?? []
        #expect(revoked.contains { $0["token"] as? String == refresh && $0["client_id"] as? String == SocialServer.appleClient })
        #expect(try TestEnvironment.scalar("select count(*)::text from app.apple_revocations where refresh_token = $1", [refresh]) == "0")
        let signIn = try SocialServer.send(
            "POST", "/auth/apple",
            json: ["id_token": try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "m"), "nonce": "m"])
        #expect(signIn.status == 201, "the identity went with the account: a new sign-in makes a new one")
    }

    /// A retry with the same Idempotency-Key: POST /me/identities answers what it answered, and
    /// nothing more is written; a sign-in's key has no scope before an account (no email in the
    /// body), so a retried sign-in signs in again, to the same account, never making a second.
    @Test func aRetryWithTheSameKey() throws {
        let ada = try Transport.socket.client.register("socialkey")
        let google = try SocialServer.idToken(.google, subject: Self.unique("g"), email: ada.email)
        let body = try JSONSerialization.data(withJSONObject: ["provider": "google", "id_token": google])
        let headers = ["Content-Type": "application/json", "Authorization": "Bearer \(ada.token)", "Idempotency-Key": "link-1"]
        let first = try SocialServer.running().client.send("POST", "/me/identities", headers: headers, body: Array(body))
        let rows = try TestEnvironment.scalar(
            "select md5(string_agg(to_jsonb(i)::text, '')) from app.user_identities i where user_id = $1::uuid", [ada.id])
        let again = try SocialServer.running().client.send("POST", "/me/identities", headers: headers, body: Array(body))
        #expect(first.status == 201 && again.status == 201 && again.text == first.text, "\(again.text)")
        #expect(
            try TestEnvironment.scalar(
                "select md5(string_agg(to_jsonb(i)::text, '')) from app.user_identities i where user_id = $1::uuid", [ada.id])
                == rows)

        let email = Self.unique("keyed") + "@privaterelay.appleid.com", subject = Self.unique("001")
        let token = try SocialServer.idToken(.apple, subject: subject, email: email, nonce: "k")
        let signIn = try JSONSerialization.data(withJSONObject: ["id_token": token, "nonce": "k"])
        let keyed = ["Content-Type": "application/json", "Idempotency-Key": "apple-1"]
        let made = try SocialServer.running().client.send("POST", "/auth/apple", headers: keyed, body: Array(signIn))
        let retried = try SocialServer.running().client.send("POST", "/auth/apple", headers: keyed, body: Array(signIn))
        #expect(made.status == 201 && retried.status == 200)
        #expect(
            (made.json["user"] as? [String: Any])?["id"] as? String == (retried.json["user"] as? [String: Any])?["id"] as? String)
        #expect(try SocialServer.users(email) == "1")
    }
}

// Push tokens (GET, PUT and DELETE /me/push-tokens), push settings (PATCH /me settings.push) and the
// outbox a friend request fills, end to end against the real database. What the sender does
// with the outbox is Tests/system/push-checks.sh's (a real HTTP/2 TLS peer).
import Foundation
import Testing

@Suite struct PushHTTPTests {
    static func apns(_ seed: String = UUID().uuidString) -> String {
        String((seed.replacingOccurrences(of: "-", with: "").lowercased() + String(repeating: "0", count: 64)).prefix(64))
    }

    static func body(_ token: String, platform: String = "apns", environment: String = "sandbox") -> String {
        #"{"token":"\#(token)","platform":"\#(platform)","environment":"\#(environment)","app_version":"2.1.0","locale":"es"}"#
    }

    static func rows(_ account: Account) throws -> String? {
        try TestEnvironment.scalar(
            "select coalesce(string_agg(md5(p::text), ' ' order by token), '') from app.push_tokens p where user_id = $1",
            [account.id])
    }

    @Test(arguments: Transport.allCases)
    func registerAgainMoveAndDelete(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushada"), bo = try client.register("pushbo")
        let token = Self.apns()
        let first = try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token.uppercased()))
        #expect(first.status == 200)
        #expect(Set(first.json.keys) == ["token", "platform", "environment", "app_version", "locale", "created_at"])
        #expect(first.json["token"] as? String == token, "stored in lower case")
        let again = try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token))
        #expect(again.status == 200 && again.text == first.text, "the same token again answers the same")
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where token = $1", [token]) == "1")

        // Another account's token is 404 to delete; registering it moves it.
        let foreign = try client.send("DELETE", "/me/push-tokens/\(token)", token: bo.token)
        #expect(foreign.status == 404 && foreign.code == "push_token_not_found")
        #expect(try TestEnvironment.scalar("select user_id::text from app.push_tokens where token = $1", [token]) == ada.id)
        #expect(try client.send("PUT", "/me/push-tokens", token: bo.token, json: Self.body(token)).status == 200)
        #expect(try TestEnvironment.scalar("select user_id::text from app.push_tokens where token = $1", [token]) == bo.id)

        let deleted = try client.send("DELETE", "/me/push-tokens/\(token)", token: bo.token)
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        let twice = try client.send("DELETE", "/me/push-tokens/\(token)", token: bo.token)
        #expect(twice.status == 404 && twice.code == "push_token_not_found")
        let unknown = try client.send("DELETE", "/me/push-tokens/\(Self.apns())", token: bo.token)
        #expect(unknown.status == 404 && unknown.code == "push_token_not_found")
    }

    /// The list: the caller's tokens only, the whole token only for the calling sign-in's own,
    /// another sign-in's by its end; a body, no token or an ended one is refused and lists nothing.
    @Test(arguments: Transport.allCases)
    func theListShowsTheCallersTokensAndNoOtherSignInsWhole(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushlist"), bo = try client.register("pushlistbo")
        let empty = try client.send("GET", "/me/push-tokens", token: ada.token)
        #expect(empty.status == 200 && (empty.json["push_tokens"] as? [Any])?.isEmpty == true)
        let mine = Self.apns(), other = Self.apns(), bos = Self.apns()
        #expect(try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(mine)).status == 200)
        let phone = try client.send("POST", "/auth/login", json: #"{"email":"\#(ada.email)","password":"correct horse"}"#)
        let phoneToken = phone.json["token"] as? String
        #expect(try client.send("PUT", "/me/push-tokens", token: phoneToken, json: Self.body(other)).status == 200)
        #expect(try client.send("PUT", "/me/push-tokens", token: bo.token, json: Self.body(bos)).status == 200)

        let listed = try client.send("GET", "/me/push-tokens", token: ada.token)
        #expect(listed.status == 200)
        let entries = listed.json["push_tokens"] as? [[String: Any]] ?? []
        #expect(entries.count == 2, "Ada's two, not Bo's")
        #expect(entries.first?["token"] is NSNull && entries.first?["token_end"] as? String == String(other.suffix(6)))
        #expect(entries.first?["current"] as? Bool == false && entries.last?["current"] as? Bool == true)
        #expect(entries.last?["token"] as? String == mine, "this sign-in's own, whole")
        #expect(!listed.text.contains(other) && !listed.text.contains(bos), "no other sign-in's or account's token whole")

        let before = try Self.rows(ada)
        let withBody = try client.send("GET", "/me/push-tokens", token: ada.token, json: #"{"all":true}"#)
        #expect(withBody.status == 400 && withBody.code == "body_not_allowed")
        let anonymous = try client.send("GET", "/me/push-tokens")
        #expect(anonymous.status == 401 && anonymous.code == "unauthorized")
        #expect(try client.send("POST", "/auth/logout", token: phoneToken).status == 204)
        let ended = try client.send("GET", "/me/push-tokens", token: phoneToken)
        #expect(ended.status == 401 && ended.code == "unauthorized")
        #expect(try Self.rows(ada) != before, "the ended sign-in's token went with it")
        let after = try client.send("GET", "/me/push-tokens", token: ada.token)
        #expect((after.json["push_tokens"] as? [[String: Any]])?.count == 1)
    }

    static let badBodies: [(body: String, code: String)] = [
        (#"{"token":"#, "invalid_json"),
        ("[]", "invalid_json"),
        (#"{"token":42,"platform":"apns","environment":"sandbox"}"#, "invalid_field"),
        (#"{"token":"not-hex-not-hex-not-hex-not-hex-not-hex","platform":"apns","environment":"sandbox"}"#, "invalid_field"),
        (#"{"token":"short","platform":"fcm","environment":"sandbox"}"#, "invalid_field"),
        (#"{"token":"\#(PushHTTPTests.apns())","platform":"webpush","environment":"sandbox"}"#, "invalid_field"),
        (#"{"token":"\#(PushHTTPTests.apns())","platform":"apns"}"#, "invalid_field"),
        (#"{"token":"\#(PushHTTPTests.apns())","platform":"apns","environment":"sandbox","locale":"no tag"}"#, "invalid_field"),
        (#"{"token":"\#(PushHTTPTests.apns())","platform":"apns","environment":"sandbox","email":"a@example.com"}"#, "invalid_field"),
        (#"{"token":"\#(PushHTTPTests.apns())","platform":"apns","environment":"sandbox","app_version":true}"#, "invalid_field"),
    ]

    @Test(arguments: Transport.allCases, badBodies)
    func refusalsChangeNothing(transport: Transport, bad: (body: String, code: String)) throws {
        let client = transport.client
        let ada = try client.register("pushbad")
        #expect(try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(Self.apns())).status == 200)
        let before = try Self.rows(ada)
        let refused = try client.send("PUT", "/me/push-tokens", token: ada.token, json: bad.body)
        #expect(refused.status == 400 && refused.code == bad.code, "\(bad.body): \(refused.status) \(refused.text)")
        #expect(try Self.rows(ada) == before)
    }

    @Test(arguments: Transport.allCases)
    func withoutAWorkingTokenNothingIsRegistered(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushauth")
        let token = Self.apns()
        #expect(try client.send("PUT", "/me/push-tokens", json: Self.body(token)).status == 401)
        let text = try client.send(
            "PUT", "/me/push-tokens", token: ada.token, body: Array(Self.body(token).utf8), headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415 && text.code == "unsupported_media_type")
        #expect(try client.send("POST", "/auth/logout", token: ada.token).status == 204)
        let expired = try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token))
        #expect(expired.status == 401 && expired.code == "unauthorized")
        #expect(try client.send("DELETE", "/me/push-tokens/\(token)", token: ada.token).status == 401)
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where token = $1", [token]) == "0")
    }

    /// Eight phones' retries of one registration at once: one row, every answer the same.
    @Test(arguments: Transport.allCases)
    func concurrentDoubleSubmitsAreOneRow(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushrace")
        let token = Self.apns()
        let results = try concurrently(8) { _ in
            try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token, platform: "apns"))
        }
        #expect(Set(results.map(\.status)) == [200])
        #expect(Set(results.map(\.text)).count == 1)
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where user_id = $1", [ada.id]) == "1")
    }

    /// PUT is idempotent by itself: a retry with the same Idempotency-Key (which PUT does not
    /// store) answers the same and changes nothing but the time of the last registration.
    @Test(arguments: Transport.allCases)
    func aRetriedPutAnswersTheSame(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushretry")
        let key = ["Idempotency-Key": "put-\(UUID().uuidString)"]
        let token = Self.apns()
        let first = try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token), headers: key)
        let replay = try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token), headers: key)
        #expect(first.status == 200 && replay.status == 200 && replay.text == first.text)
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where user_id = $1", [ada.id]) == "1")
    }

    /// A sign-in holds 2 push tokens; a password change takes the other sign-ins' with them.
    @Test(arguments: Transport.allCases)
    func tokensFollowTheirSignIn(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushsignin")
        let tokens = (0..<3).map { _ in Self.apns() }
        for token in tokens {
            #expect(try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(token)).status == 200)
        }
        #expect(
            try TestEnvironment.scalar(
                "select string_agg(token, ' ' order by token) from app.push_tokens where user_id = $1", [ada.id])
                == tokens.suffix(2).sorted().joined(separator: " "), "the first registered went")
        let phone = try client.send("POST", "/auth/login", json: #"{"email":"\#(ada.email)","password":"correct horse"}"#)
        let phoneToken = phone.json["token"] as? String
        #expect(try client.send("PUT", "/me/push-tokens", token: phoneToken, json: Self.body(Self.apns())).status == 200)
        let changed = try client.send(
            "POST", "/me/password", token: phoneToken,
            json: #"{"current_password":"correct horse","new_password":"new horse 1"}"#)
        #expect(changed.status == 204)
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where user_id = $1", [ada.id]) == "1")
        #expect(try client.send("POST", "/auth/logout", token: phoneToken).status == 204)
        #expect(try TestEnvironment.scalar("select count(*) from app.push_tokens where user_id = $1", [ada.id]) == "0")
    }

    /// Bo asks Ada: one outbox row per token of Ada's, holding ids only; muted, nothing.
    @Test(arguments: Transport.allCases)
    func aFriendRequestQueuesOnePushPerTokenWithoutAnAddress(transport: Transport) throws {
        let client = transport.client
        let ada = try client.register("pushqueue"), bo = try client.register("pushasker"), cy = try client.register("pushmuted")
        let tablet = try client.send("POST", "/auth/login", json: #"{"email":"\#(ada.email)","password":"correct horse"}"#)
        #expect(try client.send("PUT", "/me/push-tokens", token: ada.token, json: Self.body(Self.apns())).status == 200)
        let fcm = "fcm-\(UUID().uuidString)-\(UUID().uuidString)"
        #expect(
            try client.send(
                "PUT", "/me/push-tokens", token: tablet.json["token"] as? String, json: Self.body(fcm, platform: "fcm")
            ).status == 200)
        let asked = try client.send("POST", "/friend-requests", token: bo.token, json: #"{"email":"\#(ada.email)"}"#)
        #expect(asked.status == 201)
        let queued = try TestEnvironment.scalar(
            """
            select count(*) || ' ' || bool_or(o.data::text ~* '@|pushasker')::text from app.push_outbox o
            join app.push_tokens p on p.token = o.token where p.user_id = $1
            """, [ada.id])
        #expect(queued == "2 false", "one row per token, no address, no name")

        let muted = try client.send(
            "PATCH", "/me", token: ada.token, json: #"{"settings":{"push":{"muted":["friend_request.received"]}}}"#)
        #expect((muted.json["settings"] as? [String: Any])?["push"] as? [String: Any] != nil)
        #expect(try client.send("POST", "/friend-requests", token: cy.token, json: #"{"email":"\#(ada.email)"}"#).status == 201)
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.push_outbox o join app.push_tokens p on p.token = o.token where p.user_id = $1",
                [ada.id]) == "2", "a muted type queues nothing")
    }

    static let badPushSettings: [String] = [
        #"{"settings":{"push":[]}}"#,
        #"{"settings":{"push":{"quiet_hours":{"start":"22:00"}}}}"#,
        #"{"settings":{"push":{"quiet_hours":{"start":"25:00","end":"07:00"}}}}"#,
        #"{"settings":{"push":{"quiet_hours":{"start":"07:00","end":"07:00"}}}}"#,
        #"{"settings":{"push":{"muted":"friend_request.received"}}}"#,
        #"{"settings":{"push":{"muted":["session.started"]}}}"#,
        #"{"settings":{"push":{"sound":false}}}"#,
        #"{"settings":{"push":{"evening":"19:60"}}}"#,
        #"{"settings":{"push":{"evening":7}}}"#,
        #"{"settings":{"push":{"mail_reminders":"yes"}}}"#,
        #"{"settings":{"push":{"muted":["reminder.never"]}}}"#,
    ]

    @Test(arguments: Transport.allCases, badPushSettings)
    func pushSettingsAreSetReadBackAndRefusedWhole(transport: Transport, bad: String) throws {
        let client = transport.client
        let ada = try client.register("pushsettings")
        let set = try client.send(
            "PATCH", "/me", token: ada.token,
            json: #"{"settings":{"time_zone":"Europe/Paris","push":{"quiet_hours":{"start":"22:00","end":"07:30"},"#
                + #""evening":"20:15","mail_reminders":true,"muted":["reminder.goal_reached"]}}}"#)
        #expect(set.status == 200)
        let push = try client.send("GET", "/me", token: ada.token).json["settings"] as? [String: Any]
        let shown = push?["push"] as? [String: Any]
        #expect(shown?["quiet_hours"] as? [String: String] == ["start": "22:00", "end": "07:30"])
        #expect(shown?["evening"] as? String == "20:15" && shown?["mail_reminders"] as? Bool == true)
        #expect(shown?["muted"] as? [String] == ["reminder.goal_reached"], "a reminder type is muted like a push type")
        let before = try TestEnvironment.scalar(
            "select md5(row(u.*, s.*)::text) from app.users u left join app.push_settings s on s.user_id = u.id where u.id = $1",
            [ada.id])
        let refused = try client.send("PATCH", "/me", token: ada.token, json: bad)
        #expect(refused.status == 400 && refused.code == "invalid_field", "\(bad): \(refused.text)")
        #expect(
            try TestEnvironment.scalar(
                "select md5(row(u.*, s.*)::text) from app.users u left join app.push_settings s on s.user_id = u.id where u.id = $1",
                [ada.id]) == before)
    }
}

// Accounts that strangers cannot lock, probe or read, end to end (docs/security.md): the owner
// is not locked out by strangers' failures, reset codes stop after wrong guesses, emails are
// verified before friend requests find them, a reset request costs the same for any email, and
// a stored sign-in answer cannot be opened from the database.
import FocusIsland
import Foundation
import Testing

@Suite struct AccountSafetyHTTPTests {
    /// The code of the newest verification mail to an address (what the operator's mailer sends).
    static func mailedCode(_ address: String) throws -> String? {
        try TestEnvironment.scalar(
            """
            select substring(body from 'Your code is (\\d{8})') from app.outgoing_mail
            where recipient = $1 and subject ~ 'Confirm' order by id desc limit 1
            """, [address])
    }

    /// The code of the newest reset mail to an address, after the mailer's step queued it.
    static func resetCode(_ address: String) throws -> String? {
        _ = try TestEnvironment.scalar("select app.send_password_resets()")
        return try TestEnvironment.scalar(
            """
            select substring(body from 'Your code is (\\d{8})') from app.outgoing_mail
            where recipient = $1 and subject ~ 'password reset' order by id desc limit 1
            """, [address])
    }

    /// 200 strangers' failures for an email: wrong sign-ins and wrong codes from 100 addresses.
    static func strangersFail(_ email: String) throws {
        try TestEnvironment.owner().execute(
            """
            insert into app.login_failures (email, client_ip, kind)
            select $1, ('203.0.113.' || a)::inet, k from generate_series(1, 100) a, unnest(array['login', 'code']) k
            """, [email])
    }

    @Test(arguments: Transport.allCases)
    func theOwnerChangesThePasswordAndDeletesTheAccountWhile200StrangersFailuresAreRecorded(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("owner")
        try Self.strangersFail(account.email)
        let changed = try client.send(
            "POST", "/me/password", token: account.token,
            json: #"{"current_password":"correct horse","new_password":"brand new horse"}"#)
        #expect(changed.status == 204, "\(changed.text)")
        let email = try client.send(
            "POST", "/me/email", token: account.token,
            json: #"{"password":"brand new horse","email":"\#(TestEnvironment.email("elsewhere"))"}"#)
        #expect(email.status == 200, "\(email.text)")
        let deleted = try client.send("DELETE", "/me", token: account.token, json: #"{"password":"brand new horse"}"#)
        #expect(deleted.status == 204, "\(deleted.text)")
    }

    @Test(arguments: Transport.allCases)
    func theOwnersRightResetCodeWorksWhile200StrangersFailuresAreRecorded(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("coded")
        try Self.strangersFail(account.email)
        #expect(try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#).status == 202)
        let code = try #require(try Self.resetCode(account.email))
        let confirmed = try client.send(
            "POST", "/auth/password-reset/confirm",
            json: #"{"email":"\#(account.email)","code":"\#(code)","new_password":"reset horse 1"}"#)
        #expect(confirmed.status == 200, "\(confirmed.text)")
    }

    @Test func aResetCodeIsVoidAfterFiveWrongGuesses() throws {
        let client = Transport.socket.client
        let account = try client.register("guessed")
        #expect(try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#).status == 202)
        let code = try #require(try Self.resetCode(account.email))
        func confirm(_ code: String) throws -> HTTPResult {
            try client.send(
                "POST", "/auth/password-reset/confirm",
                json: #"{"email":"\#(account.email)","code":"\#(code)","new_password":"reset horse 1"}"#)
        }
        for guess in (0...9).map({ String(repeating: String($0), count: 8) }).filter({ $0 != code }).prefix(5) {
            let wrong = try confirm(guess)
            #expect(wrong.status == 400 && wrong.code == "invalid_reset_code")
        }
        let before = try AccountLifecycleHTTPTests.userRow(account)
        let right = try confirm(code)
        #expect(right.status == 400 && right.code == "invalid_reset_code")
        #expect(try AccountLifecycleHTTPTests.userRow(account) == before)
        #expect(try client.send("GET", "/me", token: account.token).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func aResetRequestForAKnownAndAnUnknownEmailDoesTheSameWork(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("timing")
        let unknown = TestEnvironment.email("nobody")
        let known = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(account.email)"}"#)
        let other = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(unknown)"}"#)
        #expect(known.status == 202 && other.status == 202 && known.text == other.text)
        // Each request only queued its email (012_account_lifecycle_reset.sql counts the writes);
        // the mailer's step then mails the account and nobody else.
        #expect(try Self.resetCode(account.email) != nil)
        #expect(try TestEnvironment.scalar("select count(*) from app.outgoing_mail where recipient = $1", [unknown]) == "0")
    }

    @Test(arguments: Transport.allCases)
    func anUnverifiedEmailIsNotFoundByFriendRequestsUntilItsCodeIsConfirmed(transport: Transport) throws {
        let client = transport.client
        let squatter = try client.register("squatter", verified: false), sender = try client.register("sender")
        let code = try #require(try Self.mailedCode(squatter.email))
        let asked = try client.send("POST", "/friend-requests", token: sender.token, json: #"{"email":"\#(squatter.email)"}"#)
        let unknown = try client.send(
            "POST", "/friend-requests", token: sender.token, json: #"{"email":"\#(TestEnvironment.email("nobody"))"}"#)
        #expect(asked.status == 404 && asked.code == "user_not_found")
        #expect(asked.text == unknown.text, "an unverified email answers exactly as an unknown one")
        #expect(try client.send("GET", "/me", token: squatter.token).json["email_verified"] as? Bool == false)

        // Refused verifications change nothing.
        let before = try AccountLifecycleHTTPTests.userRow(squatter)
        let malformed = try client.send("POST", "/me/email/verify", token: squatter.token, json: #"{"code":"#)
        #expect(malformed.status == 400 && malformed.code == "invalid_json")
        let typed = try client.send("POST", "/me/email/verify", token: squatter.token, json: #"{"code":12345678}"#)
        #expect(typed.status == 400 && typed.code == "invalid_field")
        let anonymous = try client.send("POST", "/me/email/verify", json: #"{"code":"\#(code)"}"#)
        #expect(anonymous.status == 401 && anonymous.code == "unauthorized")
        let wrong = try client.send(
            "POST", "/me/email/verify", token: squatter.token, json: #"{"code":"\#(code == "00000000" ? "11111111" : "00000000")"}"#)
        #expect(wrong.status == 400 && wrong.code == "invalid_verification_code")
        let othersCode = try client.send("POST", "/me/email/verify", token: sender.token, json: #"{"code":"\#(code)"}"#)
        #expect(othersCode.status == 400 && othersCode.code == "invalid_verification_code")
        #expect(try AccountLifecycleHTTPTests.userRow(squatter) == before)

        // A new code on request; two confirmations at once: one verifies, the other finds it used.
        let resent = try client.send("POST", "/me/email/resend", token: squatter.token)
        #expect(resent.status == 202)
        let fresh = try #require(try Self.mailedCode(squatter.email))
        let both = try concurrently(2) { _ in
            try client.send("POST", "/me/email/verify", token: squatter.token, json: #"{"code":"\#(fresh)"}"#).status
        }
        #expect(both.sorted() == [200, 400])
        #expect(try client.send("GET", "/me", token: squatter.token).json["email_verified"] as? Bool == true)
        let nothing = try client.send("POST", "/me/email/resend", token: squatter.token)
        #expect(nothing.status == 409 && nothing.code == "nothing_to_verify")
        let found = try client.send("POST", "/friend-requests", token: sender.token, json: #"{"email":"\#(squatter.email)"}"#)
        #expect(found.status == 201)
    }

    @Test(arguments: Transport.allCases)
    func aStoredSignInAnswerCannotBeOpenedFromTheDatabase(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("sealed")
        let key = ["Idempotency-Key": "sealed-\(UUID().uuidString)"]
        let body = #"{"email":"\#(account.email)","password":"correct horse"}"#
        let first = try client.send("POST", "/auth/login", json: body, headers: key)
        let replay = try client.send("POST", "/auth/login", json: body, headers: key)
        #expect(first.status == 200 && replay.text == first.text, "the server, holding its seal key, replays the token")
        // Whoever reads app.idempotency_keys and guesses the right password: the request is no key.
        let request = #"{"body": {"email": "\#(account.email)", "password": "correct horse"}, "route": "api.auth_login", "params": {}}"#
        let sealed = "(select sealed_reply from app.idempotency_keys where key = $1)"
        let stored = "select count(*) from app.idempotency_keys where key = $1 and sealed_reply is not null"
        #expect(try TestEnvironment.scalar(stored, [key["Idempotency-Key"]]) == "1")
        do {
            _ = try TestEnvironment.scalar("select pgp_sym_decrypt(\(sealed), $2)", [key["Idempotency-Key"], request])
            Issue.record("the stored sign-in opened with the request alone")
        } catch let error as DatabaseError {
            #expect(error.sqlState == "39000", "pgcrypto: wrong key")
        }
        let token = try #require(first.json["token"] as? String)
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.idempotency_keys where position(convert_to($1, 'UTF8') in coalesce(sealed_reply, '')) > 0 or reply::text ~ $1",
                [token]) == "0")
    }
}

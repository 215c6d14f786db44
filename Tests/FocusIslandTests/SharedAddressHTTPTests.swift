// Rules that count by address, behind one shared address (a school's NAT), end to end
// (docs/security.md, "Rules that count by address"): past the address's budget of 409 answers
// sign-up answers 202 alike for taken and free emails and everyone signs up with the mailed
// code; a code's errors change nothing; reset and deletion codes still work for a first, right
// guess while a prober's repeated guesses are 429. Requests go in-process with the client
// address the server would take from the socket, one IPv6 /64 of its own per test, so the
// other suites' sign-ups (all from one loopback address) are never past any budget.
import FocusIsland
import Foundation
import Testing

/// A client at one address: the in-process pipeline with `clientAddress` set, as the server sets it.
struct AddressedClient: Sendable {
    let address: String

    /// A fresh /64 of the documentation prefix, so no two tests (or runs within the hour) share one.
    static func fresh() -> AddressedClient {
        AddressedClient(
            address: "2001:db8:\(String(UInt16.random(in: 1 ... .max), radix: 16)):\(String(UInt16.random(in: 1 ... .max), radix: 16))::1")
    }

    func send(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil, body: [UInt8]? = nil,
        headers: [String: String] = [:]
    ) throws -> HTTPResult {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if json != nil && headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        var request = InProcess.request(method, target, headers: headers, body: body ?? json.map { Array($0.utf8) } ?? [])
        request.clientAddress = address
        return InProcess.result(try TestServer.pipeline().respond(to: request), method: method)
    }

    /// Puts the address past its budget of 409 answers: `count` of them counted within the hour.
    func pastTheBudget(_ count: Int) throws {
        try TestEnvironment.owner().execute(
            "insert into app.taken_email_answers (client_ip) select api.address_bucket($1::inet) from generate_series(1, $2::integer)",
            [address, String(count)])
    }

    /// `count` wrong codes from this address in the window (reset, deletion and sign-up codes count together).
    func wrongCodes(_ count: Int) throws {
        try TestEnvironment.owner().execute(
            "insert into app.login_failures (email, client_ip, kind) select 'probe' || n || '@example.com', $1::inet, 'code' from generate_series(1, $2::integer) n",
            [address, String(count)])
    }
}

@Suite struct SharedAddressHTTPTests {
    static func signUp(_ email: String, code: String? = nil, name: String = "Student") -> String {
        let code = code.map { #","code":"\#($0)""# } ?? ""
        return #"{"email":"\#(email)","password":"correct horse","display_name":"\#(name)"\#(code)}"#
    }

    /// The code of the newest sign-up mail to an address, from the outbox's params (what the mailer sends).
    static func mailedCode(_ email: String) throws -> String? {
        try TestEnvironment.scalar(
            "select params ->> 'code' from app.outgoing_mail where recipient = $1 and kind = 'signup_code' order by id desc limit 1",
            [email])
    }

    /// Everything a sign-up with a code could change for an email, as one text.
    static func signUpState(_ email: String) throws -> String? {
        try TestEnvironment.scalar(
            """
            select (select count(*) from app.users where email = $1) || '/'
                   || (select coalesce(string_agg(c.failed_attempts || ':' || (c.used_at is null), ',' order by c.id), '') from app.signup_codes c where c.email = $1)
                   || '/' || (select count(*) from app.login_failures where email = $1) || '/' || (select count(*) from app.outgoing_mail where recipient = $1)
            """, [email])
    }

    @Test func pastTheBudgetATakenAndAFreeEmailGetTheSame202AndEveryoneSignsUpWithTheMailedCode() throws {
        let school = AddressedClient.fresh()
        let holder = try Transport.inProcess.client.register("holder")
        let first = try school.send("POST", "/auth/register", json: Self.signUp(holder.email))
        #expect(first.status == 409 && first.code == "email_taken", "under the budget: \(first.text)")
        try school.pastTheBudget(19)

        let taken = try school.send("POST", "/auth/register", json: Self.signUp(holder.email))
        let freeEmail = TestEnvironment.email("student")
        let free = try school.send("POST", "/auth/register", json: Self.signUp(freeEmail))
        #expect(taken.status == 202 && free.status == 202, "\(taken.text) \(free.text)")
        #expect(taken.text == free.text)
        #expect(free.json["verification"] as? String == "mailed" && free.json["code_expires_in"] as? Int == 900)
        var takenHeaders = taken.headers, freeHeaders = free.headers
        takenHeaders["x-request-id"] = nil
        freeHeaders["x-request-id"] = nil
        #expect(takenHeaders == freeHeaders, "the headers tell nothing either")
        #expect(free.header("cache-control") == "no-store" && free.header("retry-after") == nil)
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [freeEmail]) == "0")
        #expect(
            try TestEnvironment.scalar(
                "select kind from app.outgoing_mail where recipient = $1 order by id desc limit 1", [holder.email]) == "address_taken")

        // The student reads the mail and sends the same sign-up with the code.
        let code = try #require(try Self.mailedCode(freeEmail))
        let signedUp = try school.send("POST", "/auth/register", json: Self.signUp(freeEmail, code: code))
        #expect(signedUp.status == 201, "\(signedUp.text)")
        let token = try #require(signedUp.json["token"] as? String)
        let me = try school.send("GET", "/me", token: token)
        #expect(me.status == 200 && me.json["email_verified"] as? Bool == true)
    }

    @Test func aSignUpCodesErrorsAreRefusedAndChangeNothing() throws {
        let school = AddressedClient.fresh()
        try school.pastTheBudget(20)
        let email = TestEnvironment.email("coded")
        #expect(try school.send("POST", "/auth/register", json: Self.signUp(email)).status == 202)
        let code = try #require(try Self.mailedCode(email))
        let before = try Self.signUpState(email)

        let malformed = try school.send("POST", "/auth/register", json: #"{"email":"\#(email)","code":"#)
        #expect(malformed.status == 400 && malformed.code == "invalid_json")
        let number = try school.send(
            "POST", "/auth/register", json: #"{"email":"\#(email)","password":"correct horse","display_name":"S","code":12345678}"#)
        #expect(number.status == 400 && number.code == "invalid_field" && number.json["field"] as? String == "code")
        for bad in ["1234", "1234abcd", "123456789", ""] {
            let refused = try school.send("POST", "/auth/register", json: Self.signUp(email, code: bad))
            #expect(refused.status == 400 && refused.code == "invalid_field", "\(bad): \(refused.text)")
        }
        let typo = try school.send(
            "POST", "/auth/register", json: #"{"email":"\#(email)","password":"correct horse","display_name":"S","cod":"\#(code)"}"#)
        #expect(typo.status == 400 && typo.code == "invalid_field" && typo.json["field"] as? String == "cod")
        #expect(try Self.signUpState(email) == before, "no malformed code wrote or counted anything")

        // A wrong code is the one answer, counted (on the code and for the address), and makes nothing.
        let wrong = try school.send("POST", "/auth/register", json: Self.signUp(email, code: code == "00000000" ? "11111111" : "00000000"))
        #expect(wrong.status == 400 && wrong.code == "invalid_signup_code")
        #expect(try Self.signUpState(email) == "0/1:true/1/1")

        // The right code once; then it is used.
        let right = try school.send("POST", "/auth/register", json: Self.signUp(email, code: code))
        #expect(right.status == 201, "\(right.text)")
        let reused = try AddressedClient.fresh().send("POST", "/auth/register", json: Self.signUp(email, code: code))
        #expect(reused.status == 400 && reused.code == "invalid_signup_code")
    }

    @Test func anExpiredSignUpCodeIsRefused() throws {
        let school = AddressedClient.fresh()
        try school.pastTheBudget(20)
        let email = TestEnvironment.email("late")
        #expect(try school.send("POST", "/auth/register", json: Self.signUp(email)).status == 202)
        let code = try #require(try Self.mailedCode(email))
        try TestEnvironment.owner().execute(
            "update app.signup_codes set created_at = now() - interval '16 minutes', expires_at = now() - interval '1 minute' where email = $1",
            [email])
        let late = try school.send("POST", "/auth/register", json: Self.signUp(email, code: code))
        #expect(late.status == 400 && late.code == "invalid_signup_code")
        #expect(try TestEnvironment.scalar("select count(*) from app.users where email = $1", [email]) == "0")
    }

    @Test func aRetriedStepUpWithItsKeyIsAnsweredAgainWithoutASecondMail() throws {
        let school = AddressedClient.fresh()
        try school.pastTheBudget(20)
        let email = TestEnvironment.email("retried")
        let key = ["Idempotency-Key": "step-up-\(UUID().uuidString)"]
        let first = try school.send("POST", "/auth/register", json: Self.signUp(email), headers: key)
        let replay = try school.send("POST", "/auth/register", json: Self.signUp(email), headers: key)
        #expect(first.status == 202 && replay.status == 202 && replay.text == first.text)
        #expect(try TestEnvironment.scalar("select count(*) from app.signup_codes where email = $1", [email]) == "1")
    }

    @Test func mailsPerEmailAndPerAddressAreBounded() throws {
        let school = AddressedClient.fresh()
        try school.pastTheBudget(20)
        let email = TestEnvironment.email("often")
        for _ in 1...3 { #expect(try school.send("POST", "/auth/register", json: Self.signUp(email)).status == 202) }
        let fourth = try school.send("POST", "/auth/register", json: Self.signUp(email))
        #expect(fourth.status == 429 && fourth.code == "too_many_attempts" && fourth.header("retry-after") != nil)
        #expect(try TestEnvironment.scalar("select count(*) from app.outgoing_mail where recipient = $1", [email]) == "3")
        // The address's ceiling (1,000 an hour): reached here by rows as the step-up writes them.
        try TestEnvironment.owner().execute(
            """
            insert into app.signup_codes (email, client_ip, digest, expires_at)
            select 'mailed' || n || '@example.com', api.address_bucket($1::inet), sha256(n::text::bytea), now() + interval '15 minutes'
            from app.auth_settings s, generate_series(1, s.max_signup_mails_per_address - 3) n
            """, [school.address])
        let past = try school.send("POST", "/auth/register", json: Self.signUp(TestEnvironment.email("late")))
        #expect(past.status == 429 && past.code == "too_many_attempts")
        let code = try #require(try Self.mailedCode(email))
        #expect(try school.send("POST", "/auth/register", json: Self.signUp(email, code: code)).status == 201)
    }

    @Test func aFirstRightResetCodeWorksWhileAProbersRepeatedGuessesAre429() throws {
        let school = AddressedClient.fresh()
        let student = try Transport.inProcess.client.register("reset")
        try school.wrongCodes(30)
        #expect(try school.send("POST", "/auth/password-reset", json: #"{"email":"\#(student.email)"}"#).status == 202)
        let code = try #require(try AccountSafetyHTTPTests.resetCode(student.email))
        let reset = try school.send(
            "POST", "/auth/password-reset/confirm",
            json: #"{"email":"\#(student.email)","code":"\#(code)","new_password":"reset horse 1"}"#)
        #expect(reset.status == 200, "\(reset.text)")
        let guess = #"{"email":"probe1@example.com","code":"12345678","new_password":"reset horse 1"}"#
        let again = try school.send("POST", "/auth/password-reset/confirm", json: guess)
        #expect(again.status == 429 && again.code == "too_many_attempts" && Int(again.header("retry-after") ?? "") != nil)
    }

    @Test func aFirstRightDeletionCodeWorksWhileAProbersRepeatedGuessesAre429() throws {
        let school = AddressedClient.fresh()
        let leaver = try Transport.inProcess.client.register("leaver")
        try school.wrongCodes(30)
        func post(_ path: String, _ fields: [(String, String)]) throws -> HTTPResult {
            try school.send("POST", path, body: WebHTTPTests.form(fields), headers: ["Content-Type": "application/x-www-form-urlencoded"])
        }
        #expect(try post("/account/delete", [("email", leaver.email)]).status == 200)
        let code = try #require(try WebHTTPTests.deletionCode(leaver.email))
        let done = try post("/account/delete/confirm", [("email", leaver.email), ("code", code)])
        #expect(done.status == 200 && done.text.contains("What was deleted"), "\(done.status)")
        let again = try post("/account/delete/confirm", [("email", "probe1@example.com"), ("code", "12345678")])
        #expect(again.status == 429)
    }
}

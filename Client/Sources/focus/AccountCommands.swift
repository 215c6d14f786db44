// AccountCommands: register, a guest and its upgrade, login, logout, me, the email's code, a
// parent's consent and the profile fields set here (the bio). Register, guest and login save the
// new token in the config directory (mode 0600); logout revokes it on the server, then forgets it.

import FocusIslandClient
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum AccountCommands {
    static let commands = [
        Command(
            ["register"], "EMAIL [DISPLAY NAME]", "create an account and sign in (name: the email's local part)",
            more: [
                HelpRow("  [--time-zone ZONE]", "your days in an IANA zone from the start (Europe/Paris; default UTC)"),
                HelpRow(
                    "  [--code CODE]",
                    "the code mailed when many sign-ups come from your network\n(asked for on the terminal when not given)"),
            ],
            options: ["time-zone", "code"],
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(1...2)
                return Registration(
                    email: words[0], displayName: words.count > 1 ? words[1] : nil, timeZone: arguments.options["time-zone"],
                    code: arguments.options["code"])
            }, run: register),
        Command(
            ["guest"], "[DISPLAY NAME]", "start as a guest: no email or password until focus upgrade",
            more: [HelpRow("  [--time-zone ZONE]", "your days in an IANA zone from the start (Europe/Paris; default UTC)")],
            options: ["time-zone"],
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(0...1)
                return Registration(email: "", displayName: words.first, timeZone: arguments.options["time-zone"], code: nil)
            }, run: guest),
        Command(
            ["upgrade"], "EMAIL", "give this guest account an email and password, keeping everything",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: upgrade),
        Command(
            ["consent", "ask"], "PARENT_EMAIL", "mail a parent the code that lifts the age limits (accounts under 13)",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: consentAsk),
        Command(
            ["consent", "give"], "CODE", "a parent: give back the code mailed to you, to consent",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: consentGive),
        Command(
            ["login"], "EMAIL", "sign in; the token is saved for the next commands",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: login),
        Command(["logout"], "end this token's session on the server and forget it", run: logout),
        Command(["me"], "your profile, balance and what you show", run: me),
        Command(
            ["email", "verify"], "CODE", "confirm the code mailed to your (new) email",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: emailVerify),
        Command(["email", "resend"], "mail a new code for the email waiting to be verified", run: emailResend),
        Command(["push-tokens"], "your phones' push tokens: platform, registered, last registered", run: pushTokens),
        // Signing in or linking with Apple or Google needs the provider's sign-in on a device
        // (an ID token the app gets): the CLI lists what is linked, and signs in with a password.
        Command(["identities"], "the Apple and Google accounts linked to yours (link them in the app)", run: identities),
        // `focus me FIELD VALUE`, one command per profile field set here (meUpdate with that field
        // only). A new field is one more: its word, its argument, its help, and the body its words
        // make (a reader that refuses a malformed value with a usage error, before anything is sent).
        profileField("bio", "TEXT", "the bio your friends see on your island (\"\" clears it)") { text throws(CLIError) in
            ProfileChangeBody(bio: text)
        },
        // Any other field of meUpdate by its name in the API, read by the client's own model, so
        // a new profile field needs no command of its own.
        Command(
            ["me", "set"], "FIELD VALUE", "set a profile field by its API name (focus me set daily_goal_minutes 45)",
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(atLeast: 2)
                return try profileChange(field: words[0], value: words.dropFirst().joined(separator: " "))
            }, run: changeProfile),
    ]

    /// What `focus register` was given: the email, the display name, `--time-zone` and `--code`.
    struct Registration: Equatable, Sendable {
        var email: String
        var displayName: String?
        var timeZone: String?
        var code: String?
    }

    /// A `focus me FIELD VALUE` command: its words (all of them after the field's name, joined
    /// by spaces) read by `body` into the change it sends.
    private static func profileField(
        _ name: String, _ argument: String, _ summary: String, body: @escaping @Sendable (String) throws(CLIError) -> ProfileChangeBody
    ) -> Command {
        Command(
            ["me", name], argument, summary,
            parse: { arguments throws(CLIError) in try body(arguments.count(atLeast: 1).joined(separator: " ")) },
            run: changeProfile)
    }

    /// What `focus me set FIELD VALUE` sends: VALUE as JSON when it is JSON (45, true), else as
    /// text, under FIELD; a field the model lacks, or a value of another type, is a usage error.
    static func profileChange(field: String, value: String) throws(CLIError) -> ProfileChangeBody {
        let json = (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)) ?? value
        guard let data = try? JSONSerialization.data(withJSONObject: [field: json]),
            let change = try? JSONDecoder().decode(ProfileChangeBody.self, from: data),
            let sent = try? JSONEncoder().encode(change),
            let fields = try? JSONSerialization.jsonObject(with: sent) as? [String: Any], fields[field] != nil
        else { throw .usage("focus me set: \(field) is no profile field that takes \(value) (the fields of the profile update)") }
        return change
    }

    /// From a network many people share (a school's), the server may mail a code first (202): the
    /// code is asked for on the terminal, or taken from --code, and the sign-up sent again with it.
    static func register(_ context: Context, _ registration: Registration) async throws {
        let email = registration.email
        let name = registration.displayName ?? String(email.prefix { $0 != "@" })
        let password = try Password.read(prompt: "Password for \(email) (8 characters or more): ")
        let client = try context.anonymous()
        func body(_ code: String?) -> RegisterBody {
            RegisterBody(email: email, password: password, displayName: name, timeZone: registration.timeZone, code: code)
        }
        var answer = try await client.authRegister(body(registration.code))
        if let mailed = answer.codeMailed {
            answer = try await client.authRegister(body(try mailedCode(context, email: email, mailed)))
        }
        guard let signedIn = answer.signedIn else {
            throw CLIError(.local, "the server asked for a mailed code again")
        }
        try save(signedIn, context)
        context.output.result(
            signedIn, "Signed in as \(signedIn.user.displayName) <\(signedIn.user.email ?? email)>; balance \(signedIn.user.balance) coins."
        )
    }

    /// A guest: the token is the account's only key until `focus upgrade`.
    static func guest(_ context: Context, _ registration: Registration) async throws {
        let signedIn = try await context.anonymous().authGuestCreate(
            GuestBody(displayName: registration.displayName, timeZone: registration.timeZone))
        try save(signedIn, context)
        context.output.result(
            signedIn,
            "Signed in as \(signedIn.user.displayName), a guest; balance \(signedIn.user.balance) coins. "
                + "Keep it with focus upgrade EMAIL before this token is lost.")
    }

    static func upgrade(_ context: Context, _ email: String) async throws {
        let password = try Password.read(prompt: "Password for \(email) (8 characters or more): ")
        let upgraded = try await context.signedIn().meUpgrade(UpgradeBody(email: email, password: password))
        context.output.result(
            upgraded,
            "\(upgraded.user.displayName) <\(email)> keeps everything: balance \(upgraded.user.balance) coins. "
                + "Confirm the code mailed to \(email) with focus email verify CODE.")
    }

    static func consentAsk(_ context: Context, _ parentEmail: String) async throws {
        let mailed = try await context.signedIn().meParentalConsentCreate(ParentalConsentBody(parentEmail: parentEmail))
        context.output.result(
            mailed, "A code is on its way to \(parentEmail) (it works \(mailed.codeExpiresIn / 86_400) days): focus consent give CODE.")
    }

    static func consentGive(_ context: Context, _ code: String) async throws {
        let recorded = try await context.anonymous().parentalConsentConfirm(ParentalConsentCodeBody(code: code))
        context.output.result(recorded, "Consent recorded at \(recorded.recordedAt.rawValue). Thank you.")
    }

    /// The code a sign-up mailed, typed at a prompt (stdin must be a terminal); without one, the
    /// answer is printed (with --json) and the command ends with status 6, to be run again with
    /// --code.
    static func mailedCode(_ context: Context, email: String, _ mailed: SignUpCodeMailed) throws(CLIError) -> String {
        let minutes = mailed.codeExpiresIn / 60
        guard isatty(STDIN_FILENO) == 1 else {
            context.output.object(mailed)
            throw CLIError(
                .codeMailed, "a code was mailed to \(email) (it works \(minutes) minutes): run focus register again with --code CODE")
        }
        FileHandle.standardError.write(
            Data("Many sign-ups come from your network: a code was mailed to \(email). Code (within \(minutes) minutes): ".utf8))
        guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw CLIError(.usage, "no code given: run focus register again with --code CODE")
        }
        return line
    }

    static func login(_ context: Context, _ email: String) async throws {
        let password = try Password.read(prompt: "Password for \(email): ")
        let signedIn = try await context.anonymous().authLogin(LoginBody(email: email, password: password))
        try save(signedIn, context)
        context.output.result(
            signedIn, "Signed in as \(signedIn.user.displayName) <\(signedIn.user.email ?? email)>; balance \(signedIn.user.balance) coins."
        )
    }

    static func logout(_ context: Context) async throws {
        do {
            try await context.signedIn().authLogout()
        } catch let error as FocusIslandError where error.status == 401 {
            // Already revoked or expired on the server: forgetting it here is all that is left.
        }
        try forgetAccount(context)
        try context.config.remove(Files.token)
        context.output.say("Signed out.")
    }

    static func me(_ context: Context) async throws {
        let profile = try await context.signedIn().meGet()
        context.output.result(profile, describe(profile))
    }

    static func emailVerify(_ context: Context, _ code: String) async throws {
        let profile = try await context.signedIn().meEmailVerificationConfirm(EmailVerifyBody(code: code))
        context.output.result(profile, "Email verified: \(profile.email ?? "")")
    }

    static func emailResend(_ context: Context) async throws {
        try await context.signedIn().meEmailVerificationCreate()
        context.output.say("A new code is on its way; confirm it with focus email verify CODE.")
    }

    /// Each push token by its end (another sign-in's is never shown whole), this sign-in's marked.
    static func pushTokens(_ context: Context) async throws {
        let list = try await context.signedIn().mePushTokensList()
        let lines = list.pushTokens.map { entry in
            "\(entry.platform.rawValue) \(entry.environment.rawValue) …\(entry.tokenEnd)\(entry.current ? " (this sign-in)" : "")"
                + ": registered \(entry.createdAt.rawValue), last \(entry.lastUsedAt.rawValue)"
        }
        context.output.result(list, lines.isEmpty ? "No push tokens." : lines.joined(separator: "\n"))
    }

    /// The linked providers: which, with what email, since when.
    static func identities(_ context: Context) async throws {
        let list = try await context.signedIn().meIdentitiesList()
        let lines = list.identities.map { identity in
            "\(identity.provider.rawValue) \(identity.email ?? "(no email)"): linked \(identity.linkedAt.rawValue), "
                + "last sign-in \(identity.lastSignInAt.rawValue)"
        }
        context.output.result(list, lines.isEmpty ? "No Apple or Google account is linked." : lines.joined(separator: "\n"))
    }

    /// `focus me FIELD VALUE`: the profile with the change, as `focus me` prints it.
    static func changeProfile(_ context: Context, _ change: ProfileChangeBody) async throws {
        let profile = try await context.signedIn().meUpdate(change)
        context.output.result(profile, describe(profile))
    }

    static func describe(_ profile: Profile) -> String {
        let shown = [("pet", profile.selected.pet), ("sound", profile.selected.sound), ("furniture", profile.selected.furniture)]
            .map { "\($0.0): \($0.1?.name ?? "none")" }
            .joined(separator: ", ")
        var lines = [
            profile.email.map { "\(profile.displayName) <\($0)>\(profile.emailVerified ? "" : " (not verified: focus email verify CODE)")" }
                ?? "\(profile.displayName), a guest (keep it: focus upgrade EMAIL)"
        ]
        if profile.ageRestricted { lines.append("Under 13: friends and the global board wait for a parent (focus consent ask EMAIL)") }
        if let pending = profile.pendingEmail { lines.append("Changing email to \(pending) once verified") }
        if let bio = profile.bio { lines.append("Bio: \(bio)") }
        lines += ["Balance: \(profile.balance) coins", "Showing: \(shown)"]
        return lines.joined(separator: "\n")
    }

    private static func save(_ signedIn: SignedIn, _ context: Context) throws(CLIError) {
        try forgetAccount(context)
        try context.config.write(Files.token, text: signedIn.token)
    }

    /// What belongs to the account signed in before: its last session (not this account's to
    /// rate) and its events cursor (another account's events). The tips are everyone's: kept.
    private static func forgetAccount(_ context: Context) throws(CLIError) {
        try context.config.remove(Files.session)
        try context.config.remove(Files.events)
    }
}

// MailSettings: `focus-island mail`'s configuration, from the environment (docs/mail.md). A bad
// or missing value stops start-up with one line naming the variable, as Configuration does.
import Foundation

public struct MailSettings: Sendable, Equatable {
    public enum TLS: String, Sendable {
        /// SMTP_TLS=starttls (default): plain connect, STARTTLS required before AUTH and the mail.
        case starttls
        /// SMTP_TLS=tls: TLS from the first byte (SMTPS, usually port 465).
        case implicit = "tls"
        /// SMTP_TLS=none: no TLS at all; only for a relay on loopback or the same host.
        case none
    }
    /// The database the sender claims mail in (MAIL_DATABASE_URL; default MIGRATION_DATABASE_URL).
    public var databaseURL: String
    /// SMTP_HOST (required) and SMTP_PORT (default 587; 465 for SMTP_TLS=tls).
    public var host: String
    public var port: Int
    public var tls: TLS
    /// SMTP_USER and SMTP_PASSWORD: both or neither (no AUTH).
    public var user: String?
    public var password: String?
    /// SMTP_CA_FILE: a PEM bundle to trust instead of the system's (a private relay, the tests).
    public var caFile: String?
    /// MAIL_FROM (required): `address` or `Name <address>`, the From header and the envelope sender.
    public var from: String
    public var fromAddress: String
    /// MAIL_TEMPLATE_DIR (default `mail`): <kind>.txt and <kind>.html for each kind.
    public var templateDirectory: String
    /// MAIL_BATCH (default 20): mails claimed at a time.
    public var batch: Int
    /// MAIL_POLL_SECONDS (default 5): how long an idle sender waits before it looks again.
    public var pollSeconds: Int
    /// SMTP_TIMEOUT (default 30): seconds for connecting, and for one mail in all.
    public var timeout: Int

    public init(environment env: [String: String], defaultDatabaseURL: String) throws(ConfigurationError) {
        databaseURL = env["MAIL_DATABASE_URL"] ?? defaultDatabaseURL
        guard let host = env["SMTP_HOST"], !host.isEmpty else {
            throw ConfigurationError(variable: "SMTP_HOST", reason: "must name the SMTP server")
        }
        self.host = host
        let tlsName = env["SMTP_TLS"] ?? "starttls"
        guard let tls = TLS(rawValue: tlsName) else {
            throw ConfigurationError(variable: "SMTP_TLS", reason: "must be starttls, tls or none, got '\(tlsName)'")
        }
        self.tls = tls
        port = try Self.integer(env, "SMTP_PORT", tls == .implicit ? 465 : 587, in: 1...65535)
        user = env["SMTP_USER"].flatMap { $0.isEmpty ? nil : $0 }
        password = env["SMTP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if (user == nil) != (password == nil) {
            throw ConfigurationError(variable: user == nil ? "SMTP_USER" : "SMTP_PASSWORD", reason: "must be set with the other one")
        }
        caFile = env["SMTP_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(variable: "SMTP_CA_FILE", reason: "must be a readable file, got '\(caFile)'")
        }
        guard let from = env["MAIL_FROM"], let address = MailSettings.address(in: from) else {
            throw ConfigurationError(variable: "MAIL_FROM", reason: "must be an address or 'Name <address>'")
        }
        self.from = from
        fromAddress = address
        templateDirectory = env["MAIL_TEMPLATE_DIR"] ?? "mail"
        batch = try Self.integer(env, "MAIL_BATCH", 20, in: 1...500)
        pollSeconds = try Self.integer(env, "MAIL_POLL_SECONDS", 5, in: 1...3600)
        timeout = try Self.integer(env, "SMTP_TIMEOUT", 30, in: 1...600)
    }

    /// The address of `Name <address>` or of a bare address; nil when it holds none, or holds
    /// what would break a header or the SMTP dialogue (spaces, controls, angle brackets).
    static func address(in text: String) -> String? {
        var candidate = text.trimmingCharacters(in: .whitespaces)
        if candidate.hasSuffix(">"), let open = candidate.lastIndex(of: "<") {
            candidate = String(candidate[candidate.index(after: open)..<candidate.index(before: candidate.endIndex)])
        }
        let parts = candidate.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            candidate.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 && !"<>\"(),;".unicodeScalars.contains($0) }),
            !text.unicodeScalars.contains(where: { $0.value < 32 })
        else { return nil }
        return candidate
    }

    private static func integer(_ env: [String: String], _ name: String, _ fallback: Int, in range: ClosedRange<Int>)
        throws(ConfigurationError) -> Int
    {
        guard let raw = env[name] else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw ConfigurationError(
                variable: name, reason: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return value
    }
}

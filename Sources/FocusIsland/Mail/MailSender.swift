// MailSender: `focus-island mail`, the process that drains app.outgoing_mail (docs/mail.md).
// Each round claims a batch (app.claim_outgoing_mail: FOR UPDATE SKIP LOCKED, so senders
// running at once claim disjoint rows and never send one row twice), renders each mail from
// its kind's templates, sends it over SMTP and records the outcome in its own statement:
// accepted (app.outgoing_mail_sent), refused with a 5xx or unrenderable (failed for good), a 4xx
// or a lost connection (app.outgoing_mail_failed: retried with a doubling delay, at most
// mail_settings.max_attempts tries). When the server cannot be reached at all, the first mail
// counts the try and the rest of the batch goes back unclaimed (app.outgoing_mail_release).
// Counted in the log: one line per mail (id, kind, attempt, outcome, SMTP code; never an
// address or a code) and one per batch. SIGTERM or SIGINT: the mail being sent finishes, the
// rest of the batch is released, the process exits.
import Foundation
import Glibc

public final class MailSender {
    private let settings: MailSettings
    private let templates: MailTemplates
    private let logger: Logger
    private var database: PGConnection?
    private var stopSignals = sigset_t()

    /// Totals since start (the log's batch lines say them too).
    public private(set) var sent = 0
    public private(set) var failed = 0
    public private(set) var deferred = 0

    /// Blocks SIGTERM and SIGINT for the calling thread (call before starting any other thread):
    /// the sender takes them with sigtimedwait while idle and sigpending between mails.
    public init(settings: MailSettings, templates: MailTemplates, logger: Logger) {
        self.settings = settings
        self.templates = templates
        self.logger = logger
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    }

    /// Sends until stopped; with `once`, until a claim finds nothing due, then returns.
    public func run(once: Bool) throws(SMTPError) {
        let transport = try SMTPTransport(settings: settings)
        logger.info(
            "mail: sending through \(settings.host):\(settings.port) (\(settings.tls.rawValue)) in batches of \(settings.batch)")
        while true {
            if stopRequested() { break }
            let batch: [Claimed]
            do {
                batch = try claim()
            } catch {
                logger.error("mail: the database: \(error); trying again in \(settings.pollSeconds) s")
                database = nil
                if once || waitForStop(seconds: settings.pollSeconds) { break }
                continue
            }
            if batch.isEmpty {
                if once || waitForStop(seconds: settings.pollSeconds) { break }
                continue
            }
            let stopped = send(batch, through: transport)
            if stopped { break }
        }
        logger.info("mail: stopped after \(sent) sent, \(failed) failed, \(deferred) to retry")
    }

    struct Claimed {
        var id: String
        var kind: String
        var recipient: String
        var values: [String: String]
        var attempt: String
    }

    private func connection() throws(DatabaseError) -> PGConnection {
        if let database, database.isUsable { return database }
        let opened = try PGConnection(conninfo: settings.databaseURL, namedStatements: false)
        database = opened
        return opened
    }

    private func claim() throws(DatabaseError) -> [Claimed] {
        let rows = try connection().execute(
            "select id, kind, recipient, subject, body, params::text, attempts from app.claim_outgoing_mail($1)",
            [String(settings.batch)])
        return rows.map { row in
            var values: [String: String] = ["subject": row[3] ?? "", "body": row[4] ?? ""]
            if let params = row[5], let object = try? JSONSerialization.jsonObject(with: Data(params.utf8)) as? [String: Any] {
                for (name, value) in object { values[name] = "\(value)" }
            }
            return Claimed(id: row[0] ?? "", kind: row[1] ?? "", recipient: row[2] ?? "", values: values, attempt: row[6] ?? "")
        }
    }

    /// Sends a claimed batch; true when a stop signal came (the rest was released).
    private func send(_ batch: [Claimed], through transport: SMTPTransport) -> Bool {
        var counts = (sent: 0, failed: 0, deferred: 0)
        for (index, mail) in batch.enumerated() {
            let outcome: SMTPOutcome
            do {
                let rendered = try templates.render(
                    kind: mail.kind, language: mail.values["language"] ?? MailTemplates.fallback, values: mail.values)
                let domain = settings.fromAddress.split(separator: "@").last.map(String.init) ?? "localhost"
                let message = MailMessage.compose(
                    from: settings.from, to: mail.recipient, subject: rendered.subject, text: rendered.text,
                    html: rendered.html, messageID: "<outgoing-mail-\(mail.id).\(MailMessage.randomHex(8))@\(domain)>",
                    date: Date())
                outcome = transport.send(message, to: mail.recipient)
            } catch {
                outcome = .refused(code: 0, error: error.description)
            }
            let state: String
            switch outcome {
            case .accepted:
                state = record("select app.outgoing_mail_sent($1)::text", [mail.id]) == "true" ? "sent" : "gone"
            case .refused(_, let error):
                state = record("select app.outgoing_mail_failed($1, true, $2)", [mail.id, error]) ?? "gone"
            case .deferred(_, let error, _):
                state = record("select app.outgoing_mail_failed($1, false, $2)", [mail.id, error]) ?? "gone"
            }
            switch state {
            case "sent": counts.sent += 1
            case "failed": counts.failed += 1
            case "queued": counts.deferred += 1
            default: break
            }
            logger.log([
                "level": "info", "message": "mail", "mail_id": .string(mail.id), "kind": .string(mail.kind),
                "attempt": .string(mail.attempt), "outcome": .string(state), "smtp_code": .string(Self.code(of: outcome)),
            ])
            let rest = batch[(index + 1)...]
            if case .deferred(_, _, true) = outcome, !rest.isEmpty {
                release(rest, because: "not tried: the SMTP server could not be reached")
                break
            }
            if stopRequested() {
                release(rest, because: "not tried: the sender stopped")
                finish(counts)
                return true
            }
        }
        finish(counts)
        return false
    }

    private func finish(_ counts: (sent: Int, failed: Int, deferred: Int)) {
        sent += counts.sent
        failed += counts.failed
        deferred += counts.deferred
        logger.info("mail: batch done: \(counts.sent) sent, \(counts.failed) failed, \(counts.deferred) to retry")
    }

    private func release(_ mails: ArraySlice<Claimed>, because reason: String) {
        for mail in mails { _ = record("select app.outgoing_mail_release($1, $2)::text", [mail.id, reason]) }
    }

    /// Runs one recording statement; its one value, or nil (logged) when the database failed:
    /// the row stays claimed and is taken again after mail_settings.claim_timeout.
    private func record(_ sql: String, _ parameters: [String?]) -> String? {
        do {
            return try connection().execute(sql, parameters).first?.first ?? nil
        } catch {
            logger.error("mail: recording an outcome failed: \(error)")
            database = nil
            return nil
        }
    }

    static func code(of outcome: SMTPOutcome) -> String {
        switch outcome {
        case .accepted: return "250"
        case .refused(let code, _), .deferred(let code, _, _): return String(code)
        }
    }

    private func stopRequested() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1
    }

    /// Waits up to `seconds` for a stop signal; true when one came.
    private func waitForStop(seconds: Int) -> Bool {
        var timeout = timespec(tv_sec: seconds, tv_nsec: 0)
        return sigtimedwait(&stopSignals, nil, &timeout) > 0
    }
}

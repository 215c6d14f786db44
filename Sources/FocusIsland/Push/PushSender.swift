// PushSender: `focus-island push`, the process that drains app.push_outbox (docs/push.md).
// A round is one transaction on its own connection: api.push_claim locks up to PUSH_BATCH due
// rows FOR UPDATE SKIP LOCKED (so senders running at once never take one row twice), each is
// sent to APNs or FCM, api.push_settle records what they answered, and the commit ends the
// round. A sender that dies mid-round rolls back: its rows are sent again by the next round
// (at least once; a push the service had already accepted then arrives twice).
// Counters (focus_push_sends_total by platform and outcome) are served at PUSH_METRICS_PORT.
import CCurl
import Foundation
import Synchronization

/// One outbox row as api.push_claim answers it.
struct PushMessage {
    let id: Int
    let token: String
    let platform: String
    let environment: String
    let type: String
    let locKey: String
    let locArgs: [String]
    let data: [String: Any]

    init?(_ object: [String: Any]) {
        guard let id = object["id"] as? Int, let token = object["token"] as? String,
            let platform = object["platform"] as? String, let environment = object["environment"] as? String,
            let type = object["type"] as? String, let locKey = object["loc_key"] as? String
        else { return nil }
        self.id = id
        self.token = token
        self.platform = platform
        self.environment = environment
        self.type = type
        self.locKey = locKey
        self.locArgs = object["loc_args"] as? [String] ?? []
        self.data = object["data"] as? [String: Any] ?? [:]
    }
}

/// What a push service answered, as api.push_settle records it.
enum PushOutcome: Equatable {
    case sent
    /// The token is dead (APNs 410, BadDeviceToken; FCM UNREGISTERED): it is deleted.
    case dead(error: String)
    /// 429, 5xx or no answer: tried again after max(Retry-After, the backoff).
    case retry(after: Int?, error: String)
    /// A refusal no retry mends: the row is dropped.
    case failed(error: String)

    var name: String {
        switch self {
        case .sent: "sent"
        case .dead: "dead"
        case .retry: "retry"
        case .failed: "failed"
        }
    }

    func result(id: Int) -> [String: Any] {
        switch self {
        case .sent: ["id": id, "outcome": "sent"]
        case .dead(let error): ["id": id, "outcome": "dead", "error": error]
        case .retry(let after, let error): ["id": id, "outcome": "retry", "retry_after": after ?? NSNull(), "error": error]
        case .failed(let error): ["id": id, "outcome": "failed", "error": error]
        }
    }
}

/// The sender's environment (docs/operations.md, docs/push.md).
public struct PushSettings: Sendable, Equatable {
    public var apns: APNsSettings?
    public var fcm: FCMSettings?
    /// PUSH_CA_FILE: a PEM bundle trusted instead of the system's.
    public var caFile: String?
    /// PUSH_BATCH: rows one round claims (1 to 500).
    public var batch = 100
    /// PUSH_POLL_INTERVAL: seconds between rounds that found nothing due.
    public var pollInterval = 1.0
    public var metricsHost = "127.0.0.1"
    /// PUSH_METRICS_PORT: GET /metrics of this process; nil (the default): off.
    public var metricsPort: UInt16?

    public init(environment: [String: String]) throws(ConfigurationError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func required(_ name: String, for platform: String) throws(ConfigurationError) -> String {
            guard let text = value(name) else {
                throw ConfigurationError(variable: name, reason: "must be set to send to \(platform)")
            }
            return text
        }
        if let keyFile = value("APNS_KEY_FILE") {
            apns = APNsSettings(
                keyFile: keyFile, keyID: try required("APNS_KEY_ID", for: "APNs"),
                teamID: try required("APNS_TEAM_ID", for: "APNs"), topic: try required("APNS_TOPIC", for: "APNs"),
                productionURL: value("APNS_URL") ?? "https://api.push.apple.com",
                sandboxURL: value("APNS_SANDBOX_URL") ?? "https://api.sandbox.push.apple.com")
        }
        if let file = value("FCM_SERVICE_ACCOUNT_FILE") {
            fcm = FCMSettings(
                serviceAccountFile: file, baseURL: value("FCM_URL") ?? "https://fcm.googleapis.com",
                tokenURL: value("FCM_TOKEN_URL"))
        }
        if apns == nil && fcm == nil {
            throw ConfigurationError(variable: "APNS_KEY_FILE", reason: "or FCM_SERVICE_ACCOUNT_FILE must be set")
        }
        caFile = value("PUSH_CA_FILE")
        if let text = value("PUSH_BATCH") {
            guard let number = Int(text), (1...500).contains(number) else {
                throw ConfigurationError(variable: "PUSH_BATCH", reason: "must be a number from 1 to 500")
            }
            batch = number
        }
        if let text = value("PUSH_POLL_INTERVAL") {
            guard let number = Double(text), number > 0, number <= 60 else {
                throw ConfigurationError(variable: "PUSH_POLL_INTERVAL", reason: "must be seconds above 0, at most 60")
            }
            pollInterval = number
        }
        metricsHost = value("PUSH_METRICS_HOST") ?? metricsHost
        if let text = value("PUSH_METRICS_PORT") {
            guard let number = UInt16(text) else {
                throw ConfigurationError(variable: "PUSH_METRICS_PORT", reason: "must be a port number")
            }
            metricsPort = number
        }
    }

    /// The platforms this sender sends to (api.push_claim leaves the others' rows queued).
    var platforms: [String] { (apns == nil ? [] : ["apns"]) + (fcm == nil ? [] : ["fcm"]) }
}

/// focus_push_sends_total{platform, outcome}: one per push attempt, counted as settled.
public final class PushCounters: Sendable {
    static let platforms = ["apns", "fcm"]
    static let outcomes = ["sent", "dead", "retry", "failed"]
    private let counters: [Counter] = (0..<8).map { _ in Counter() }

    func add(platform: String, outcome: String) {
        guard let p = Self.platforms.firstIndex(of: platform), let o = Self.outcomes.firstIndex(of: outcome) else { return }
        counters[p * 4 + o].add()
    }

    public func render() -> String {
        var text =
            "# HELP focus_push_sends_total Pushes sent to APNs and FCM, by what the service answered.\n"
            + "# TYPE focus_push_sends_total counter\n"
        for (p, platform) in Self.platforms.enumerated() {
            for (o, outcome) in Self.outcomes.enumerated() {
                text += "focus_push_sends_total{platform=\"\(platform)\",outcome=\"\(outcome)\"} \(counters[p * 4 + o].current)\n"
            }
        }
        return text
    }
}

public final class PushSender: @unchecked Sendable {
    let settings: PushSettings
    let conninfo: String
    let logger: Logger
    public let counters = PushCounters()
    private let stopping = Atomic<Bool>(false)
    private var metrics: Daemon?

    public init(settings: PushSettings, conninfo: String, logger: Logger) {
        self.settings = settings
        self.conninfo = conninfo
        self.logger = logger
    }

    /// The port GET /metrics listens on (after `run` started it), 0 when off.
    public var metricsPort: UInt16 { metrics?.port ?? 0 }

    /// Ends `run` after the round in flight.
    public func stop() { stopping.store(true, ordering: .relaxed) }

    /// Sends until stopped; with `once`, until a round finds nothing due. Returns the pushes settled.
    @discardableResult
    public func run(once: Bool = false) throws(PushError) -> Int {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        let apns = try settings.apns.map { settings throws(PushError) in try APNs(settings: settings, caFile: self.settings.caFile) }
        let fcm = try settings.fcm.map { settings throws(PushError) in try FCM(settings: settings, caFile: self.settings.caFile) }
        if let port = settings.metricsPort {
            let counters = self.counters
            let daemon = Daemon(purpose: "push metrics") { method, path in
                MetricsServer.answer(method: method, path: path) { counters.render() }
            }
            do {
                try daemon.start(
                    host: settings.metricsHost, port: port, limits: Daemon.Limits(idleTimeout: 10, connectionLimit: 16))
            } catch {
                throw PushError(error.description)
            }
            metrics = daemon
            logger.info("push metrics on \(settings.metricsHost):\(daemon.port)/metrics")
        }
        defer { metrics?.stop() }
        var connection: PGConnection?
        var settled = 0
        let platforms = "{" + settings.platforms.joined(separator: ",") + "}"
        while !stopping.load(ordering: .relaxed) {
            do {
                if connection == nil || connection?.isUsable == false { connection = try PGConnection(conninfo: conninfo) }
                guard let db = connection else { continue }
                let count = try round(db, platforms: platforms, apns: apns, fcm: fcm)
                settled += count
                if count > 0 { continue }
                if once { break }
            } catch {
                logger.error("push: \(error)")
                connection?.close()
                connection = nil
                if once { throw PushError("push: \(error)") }
            }
            usleep(UInt32(settings.pollInterval * 1_000_000))
        }
        return settled
    }

    /// One transaction: claim, send, settle. Returns the rows claimed.
    func round(_ db: PGConnection, platforms: String, apns: APNs?, fcm: FCM?) throws(DatabaseError) -> Int {
        try db.execute("begin")
        do {
            let claimed = try db.execute("select api.push_claim($1::integer, $2::text[])::text", [String(settings.batch), platforms])
            let text = claimed.first.flatMap { $0.first ?? nil } ?? "[]"
            let list = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
            if list.isEmpty {
                try db.execute("commit")
                return 0
            }
            var results: [[String: Any]] = []
            var outcomes: [(String, String)] = []
            for object in list {
                guard let message = PushMessage(object) else { continue }
                let outcome: PushOutcome
                switch message.platform {
                case "apns": outcome = apns?.send(message) ?? .retry(after: nil, error: "APNs is not configured")
                default: outcome = fcm?.send(message) ?? .retry(after: nil, error: "FCM is not configured")
                }
                results.append(outcome.result(id: message.id))
                outcomes.append((message.platform, outcome.name))
                logger.log([
                    "level": "info", "push": .string(message.platform), "id": .string(String(message.id)),
                    "type": .string(message.type), "outcome": .string(outcome.name),
                ])
            }
            let body = (try? JSONSerialization.data(withJSONObject: results)).map { String(decoding: $0, as: UTF8.self) }
            try db.execute("select api.push_settle($1::jsonb)", [body ?? "[]"])
            try db.execute("commit")
            for (platform, outcome) in outcomes { counters.add(platform: platform, outcome: outcome) }
            return list.count
        } catch {
            _ = try? db.execute("rollback")
            throw error
        }
    }
}

// AppleRevokeSender: `focus-island apple-revoke`, the process that drains app.apple_revocations
// (the Apple refresh tokens erasure queued) into Apple's revoke endpoint, as PushSender drains
// the push outbox: a round is one transaction on its own connection, api.apple_revocations_claim
// locks up to 50 due rows FOR UPDATE SKIP LOCKED, each is posted, api.apple_revocations_settle
// records what Apple answered (200: gone; a 4xx refusal: gone, nothing to revoke; 429, 5xx or no
// answer: tried again later), and the commit ends the round.
import Foundation
import Synchronization

public final class AppleRevokeSender: @unchecked Sendable {
    let client: AppleClient
    let conninfo: String
    let logger: Logger
    /// POLL_INTERVAL: seconds between rounds that found nothing due.
    let pollInterval: Double
    private let stopping = Atomic<Bool>(false)

    /// Throws when no Sign in with Apple key is configured (nothing could be revoked).
    public init(settings: SocialSettings, conninfo: String, logger: Logger, pollInterval: Double = 5) throws(PushError) {
        guard let client = try AppleClient(settings: settings) else {
            throw PushError("apple-revoke: APPLE_SIGN_IN_KEY_FILE, APPLE_TEAM_ID and APPLE_SIGN_IN_KEY_ID must be set")
        }
        self.client = client
        self.conninfo = conninfo
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Ends `run` after the round in flight.
    public func stop() { stopping.store(true, ordering: .relaxed) }

    /// Revokes until stopped; with `once`, until a round finds nothing due. Returns the rows settled.
    @discardableResult
    public func run(once: Bool = false) throws(PushError) -> Int {
        var connection: PGConnection?
        var settled = 0
        while !stopping.load(ordering: .relaxed) {
            do {
                if connection == nil || connection?.isUsable == false { connection = try PGConnection(conninfo: conninfo) }
                guard let db = connection else { continue }
                let count = try round(db)
                settled += count
                if count > 0 { continue }
                if once { break }
            } catch {
                logger.error("apple-revoke: \(error)")
                connection?.close()
                connection = nil
                if once { throw PushError("apple-revoke: \(error)") }
            }
            usleep(UInt32(pollInterval * 1_000_000))
        }
        return settled
    }

    /// One transaction: claim, post, settle. Returns the rows claimed.
    func round(_ db: PGConnection) throws(DatabaseError) -> Int {
        try db.execute("begin")
        do {
            let claimed = try db.execute("select api.apple_revocations_claim(50)::text")
            let list = JSONValue.array(claimed.first.flatMap { $0.first ?? nil } ?? "[]")
            if list.isEmpty {
                try db.execute("commit")
                return 0
            }
            var results: [[String: Any]] = []
            for row in list {
                guard let id = row["id"] as? Int, let token = row["refresh_token"] as? String,
                    let clientID = row["client_id"] as? String
                else { continue }
                let result: [String: Any]
                switch client.revoke(refreshToken: token, clientID: clientID) {
                case .ok: result = ["id": id, "outcome": "sent"]
                case .refused(let why): result = ["id": id, "outcome": "failed", "error": why]
                case .unavailable(let why, let after):
                    result = ["id": id, "outcome": "retry", "error": why, "retry_after": after ?? NSNull()]
                }
                results.append(result)
                logger.log(["level": "info", "apple_revoke": .string(String(id)), "outcome": .string(result["outcome"] as? String ?? "")])
            }
            let body = (try? JSONSerialization.data(withJSONObject: results)).map { String(decoding: $0, as: UTF8.self) }
            try db.execute("select api.apple_revocations_settle($1::jsonb)", [body ?? "[]"])
            try db.execute("commit")
            return list.count
        } catch {
            _ = try? db.execute("rollback")
            throw error
        }
    }
}

extension JSONValue {
    static func array(_ text: String) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
    }
}

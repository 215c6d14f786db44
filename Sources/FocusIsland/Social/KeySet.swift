// KeySet: a provider's signing keys (its JWK set at the configured URL), fetched by the server
// and kept in memory: fetched again once `refresh` seconds old, and, for a key id it lacks (the
// provider rotated its keys), at most once per `unknownKeyInterval` seconds, so tokens naming
// made-up key ids cost the provider one request a minute at most. A failed fetch keeps the keys
// it had. Shared by the HTTP workers: one fetch at a time, under the lock.
import Foundation

final class KeySet: @unchecked Sendable {
    let url: String
    private let caFile: String?
    private let refresh: Double
    private let unknownKeyInterval: Double
    private let logger: Logger
    private let lock = NSLock()
    private var keys: [String: RSAPublicKey] = [:]
    /// When the keys were last fetched (monotonic seconds); nil: never.
    private var fetchedAt: Double?
    /// When a fetch was last tried, succeeded or not.
    private var triedAt: Double?

    init(url: String, caFile: String?, refresh: Double, unknownKeyInterval: Double, logger: Logger) {
        self.url = url
        self.caFile = caFile
        self.refresh = refresh
        self.unknownKeyInterval = unknownKeyInterval
        self.logger = logger
    }

    /// The key of `id`: 401 identity_token_unknown_key when the provider does not publish it (after
    /// a fetch allowed now), 503 identity_keys_unavailable when no key could be fetched at all.
    func key(id: String) throws(Problem) -> RSAPublicKey {
        lock.lock()
        defer { lock.unlock() }
        let now = Double(monotonicMicroseconds()) / 1_000_000
        let stale = fetchedAt.map { now - $0 >= refresh } ?? true
        let sinceTry = triedAt.map { now - $0 } ?? .infinity
        // Stale (or never fetched): fetched now, a failed fetch tried again after 5 s; a key id
        // the fresh set lacks: fetched again once unknownKeyInterval passed since the last try.
        if stale ? sinceTry >= 5 : (keys[id] == nil && sinceTry >= unknownKeyInterval) {
            triedAt = now
            do {
                keys = try fetch()
                fetchedAt = now
            } catch {
                logger.error("social sign-in: fetching the keys at \(url): \(error)")
            }
        }
        if let key = keys[id] { return key }
        if keys.isEmpty {
            throw Problem(503, "identity_keys_unavailable", "The sign-in provider's keys cannot be fetched now; try again soon.")
        }
        throw Problem(401, "identity_token_unknown_key", "The ID token is signed with a key the provider does not publish.")
    }

    /// The set's RS256 keys by key id (others, such as encryption keys, are left out).
    private func fetch() throws(PushError) -> [String: RSAPublicKey] {
        let response = try PushHTTP(caFile: caFile).send(method: "GET", url: url, headers: [("Accept", "application/json")], body: [])
        guard response.status == 200 else { throw PushError("\(url) answered \(response.status)") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let list = object["keys"] as? [[String: Any]]
        else { throw PushError("\(url) answered no JWK set") }
        var keys: [String: RSAPublicKey] = [:]
        for jwk in list {
            guard jwk["kty"] as? String == "RSA", let id = jwk["kid"] as? String,
                (jwk["alg"] as? String ?? "RS256") == "RS256", (jwk["use"] as? String ?? "sig") == "sig",
                let n = jwk["n"] as? String, let e = jwk["e"] as? String, let key = RSAPublicKey(n: n, e: e)
            else { continue }
            keys[id] = key
        }
        guard !keys.isEmpty else { throw PushError("\(url) holds no RS256 key") }
        return keys
    }
}

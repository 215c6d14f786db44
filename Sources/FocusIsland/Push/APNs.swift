// APNs: Apple's HTTP/2 provider API with token authentication. The provider token is an ES256
// JWT {iss: team id, iat} with the key id in its header, signed with the .p8 key; it is made
// again after 50 minutes (Apple refuses one older than an hour and one renewed more often than
// every 20 minutes), or at once when APNs answers 403 ExpiredProviderToken.
import Foundation

public struct APNsSettings: Sendable, Equatable {
    public var keyFile: String
    public var keyID: String
    public var teamID: String
    /// apns-topic: the app's bundle id.
    public var topic: String
    /// The production and sandbox hosts (a token's `environment` picks one).
    public var productionURL: String
    public var sandboxURL: String
}

final class APNs {
    let settings: APNsSettings
    private let key: SigningKey
    private let http: PushHTTP
    private var token: (jwt: String, madeAt: Date)?
    static let tokenLifetime: TimeInterval = 50 * 60

    init(settings: APNsSettings, caFile: String?) throws(PushError) {
        self.settings = settings
        let pem: String
        do { pem = try String(contentsOfFile: settings.keyFile, encoding: .utf8) } catch {
            throw PushError("APNS_KEY_FILE \(settings.keyFile) cannot be read")
        }
        self.key = try SigningKey(pem: pem, algorithm: .es256)
        self.http = try PushHTTP(caFile: caFile)
    }

    /// The provider token, made again when older than 50 minutes or when `renew`.
    func providerToken(renew: Bool = false) throws(PushError) -> String {
        if !renew, let token, Date().timeIntervalSince(token.madeAt) < Self.tokenLifetime { return token.jwt }
        let now = Date()
        let jwt = try JWT.make(
            header: ["kid": settings.keyID], claims: ["iss": settings.teamID, "iat": Int(now.timeIntervalSince1970)], key: key)
        token = (jwt, now)
        return jwt
    }

    /// The alert the app localises: loc-key and loc-args, the ids beside `aps`.
    static func payload(_ message: PushMessage) -> [UInt8] {
        let object: [String: Any] = [
            "aps": [
                "alert": ["loc-key": message.locKey, "loc-args": message.locArgs],
                "sound": "default", "thread-id": message.type,
            ],
            "focus": message.data,
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    func send(_ message: PushMessage) -> PushOutcome {
        let base = message.environment == "production" ? settings.productionURL : settings.sandboxURL
        var renew = false
        for _ in 0..<2 {
            let response: PushHTTPResponse
            do {
                let headers = [
                    ("authorization", "bearer \(try providerToken(renew: renew))"), ("apns-topic", settings.topic),
                    ("apns-push-type", "alert"), ("apns-priority", "10"), ("content-type", "application/json"),
                ]
                response = try http.send(
                    method: "POST", url: "\(base)/3/device/\(message.token)", headers: headers, body: Self.payload(message))
            } catch {
                return .retry(after: nil, error: error.description)
            }
            guard response.http2 else { return .retry(after: nil, error: "\(base) did not answer in HTTP/2") }
            let reason = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
            let error = "\(response.status) \(reason ?? "")"
            switch response.status {
            case 200: return .sent
            case 410: return .dead(error: error)
            case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic": return .dead(error: error)
            case 403 where reason == "ExpiredProviderToken" && !renew: renew = true
            case 429, 500...599: return .retry(after: response.retryAfter, error: error)
            default: return .failed(error: error)
            }
        }
        return .failed(error: "403 ExpiredProviderToken after a new token")
    }
}

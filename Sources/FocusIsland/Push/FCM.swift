// FCM: Firebase Cloud Messaging's HTTP v1 API. Its OAuth2 access token comes from the service
// account JSON: an RS256 JWT assertion {iss: client_email, scope: firebase.messaging, aud:
// token_uri, iat, exp} exchanged at token_uri (grant type jwt-bearer); it is fetched again five
// minutes before it expires, or at once when FCM answers 401.
import Foundation

public struct FCMSettings: Sendable, Equatable {
    /// The service account JSON (project_id, client_email, private_key, token_uri).
    public var serviceAccountFile: String
    /// The API's base (https://fcm.googleapis.com); messages go to /v1/projects/{id}/messages:send.
    public var baseURL: String
    /// Overrides the JSON's token_uri when set (FCM_TOKEN_URL).
    public var tokenURL: String?
}

final class FCM {
    let settings: FCMSettings
    let projectID: String
    let clientEmail: String
    let tokenURI: String
    private let key: SigningKey
    private let http: PushHTTP
    private var access: (token: String, expires: Date)?
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    init(settings: FCMSettings, caFile: String?) throws(PushError) {
        self.settings = settings
        guard let data = FileManager.default.contents(atPath: settings.serviceAccountFile),
            let account = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw PushError("FCM_SERVICE_ACCOUNT_FILE \(settings.serviceAccountFile) is not a readable JSON object") }
        guard let projectID = account["project_id"] as? String, let clientEmail = account["client_email"] as? String,
            let privateKey = account["private_key"] as? String,
            let tokenURI = settings.tokenURL ?? account["token_uri"] as? String
        else { throw PushError("FCM_SERVICE_ACCOUNT_FILE lacks project_id, client_email, private_key or token_uri") }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.key = try SigningKey(pem: privateKey, algorithm: .rs256)
        self.http = try PushHTTP(caFile: caFile)
    }

    /// The OAuth2 access token, fetched again five minutes before it expires or when `renew`.
    func accessToken(renew: Bool = false) throws(PushError) -> String {
        if !renew, let access, access.expires.timeIntervalSinceNow > 300 { return access.token }
        let now = Int(Date().timeIntervalSince1970)
        let assertion = try JWT.make(
            header: [:],
            claims: ["iss": clientEmail, "scope": Self.scope, "aud": tokenURI, "iat": now, "exp": now + 3600], key: key)
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let response = try http.send(
            method: "POST", url: tokenURI, headers: [("content-type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8))
        guard response.status == 200,
            let answer = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let token = answer["access_token"] as? String
        else { throw PushError("\(tokenURI) answered \(response.status): \(response.text.prefix(200))") }
        let lifetime = (answer["expires_in"] as? Int) ?? 3600
        access = (token, Date().addingTimeInterval(TimeInterval(lifetime)))
        return token
    }

    /// A data message with the ids (FCM data values are strings) and an Android notification the
    /// app localises (body_loc_key, body_loc_args).
    static func payload(_ message: PushMessage) -> [UInt8] {
        var data = message.data.mapValues { value -> String in
            if let text = value as? String { return text }
            return (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]))
                .map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        data["loc_key"] = message.locKey
        let object: [String: Any] = [
            "message": [
                "token": message.token, "data": data,
                "android": [
                    "priority": "high",
                    "notification": ["body_loc_key": message.locKey, "body_loc_args": message.locArgs, "tag": message.type],
                ],
            ]
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    func send(_ message: PushMessage) -> PushOutcome {
        let url = "\(settings.baseURL)/v1/projects/\(projectID)/messages:send"
        var renew = false
        for _ in 0..<2 {
            let response: PushHTTPResponse
            do {
                let headers = [
                    ("authorization", "Bearer \(try accessToken(renew: renew))"), ("content-type", "application/json"),
                ]
                response = try http.send(method: "POST", url: url, headers: headers, body: Self.payload(message))
            } catch {
                return .retry(after: nil, error: error.description)
            }
            let error =
                (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"]
                as? [String: Any]
            let details = (error?["details"] as? [[String: Any]]) ?? []
            let codes = details.compactMap { $0["errorCode"] as? String } + [(error?["status"] as? String) ?? ""]
            let text = "\(response.status) \(codes.filter { !$0.isEmpty }.joined(separator: " "))"
            switch response.status {
            case 200: return .sent
            case _ where codes.contains("UNREGISTERED"): return .dead(error: text)
            case 401 where !renew: renew = true
            case 429, 500...599: return .retry(after: response.retryAfter, error: text)
            default: return .failed(error: text)
            }
        }
        return .failed(error: "401 after a new access token")
    }
}

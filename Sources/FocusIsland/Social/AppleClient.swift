// AppleClient: Sign in with Apple's two server calls, each authenticated by a client secret (an
// ES256 JWT signed with the team's Sign in with Apple key, Push/JWT.swift): exchanging an
// authorization code for a refresh token (POST APPLE_TOKEN_URL, at sign-in), and revoking a
// refresh token (POST APPLE_REVOKE_URL, by `focus-island apple-revoke` after erasure).
import Foundation

struct AppleClient: Sendable {
    let settings: SocialSettings
    let key: SigningKey
    let appleKey: SocialSettings.AppleKey

    /// nil when no Sign in with Apple key is configured; throws when the key cannot be read.
    init?(settings: SocialSettings) throws(PushError) {
        guard let appleKey = settings.appleKey else { return nil }
        guard let pem = try? String(contentsOfFile: appleKey.keyFile, encoding: .utf8) else {
            throw PushError("cannot read APPLE_SIGN_IN_KEY_FILE \(appleKey.keyFile)")
        }
        self.settings = settings
        self.appleKey = appleKey
        key = try SigningKey(pem: pem, algorithm: .es256)
    }

    /// The client secret for `clientID`: iss the team, sub the client id, aud Apple, five minutes.
    func clientSecret(clientID: String) throws(PushError) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return try JWT.make(
            header: ["kid": appleKey.keyID],
            claims: ["iss": appleKey.teamID, "iat": now, "exp": now + 300, "aud": "https://appleid.apple.com", "sub": clientID],
            key: key)
    }

    /// What a form POST to Apple answered.
    enum Answer: Equatable {
        case ok([String: String])
        /// Apple refused it (400 with an OAuth error such as invalid_grant): no retry mends it.
        case refused(String)
        /// 429, 5xx, or no answer: worth another try later.
        case unavailable(String, retryAfter: Int?)
    }

    /// POSTs the form to `url` with client_id and a fresh client_secret.
    func post(_ url: String, clientID: String, form: [(String, String)]) -> Answer {
        let secret: String
        do { secret = try clientSecret(clientID: clientID) } catch { return .unavailable(error.description, retryAfter: nil) }
        let fields = [("client_id", clientID), ("client_secret", secret)] + form
        let body = fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")
        let response: PushHTTPResponse
        do {
            response = try PushHTTP(caFile: settings.caFile).send(
                method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(body.utf8), timeout: 10)
        } catch {
            return .unavailable(error.description, retryAfter: nil)
        }
        let object = JSONValue.object(response.body) ?? [:]
        switch response.status {
        case 200: return .ok(object.compactMapValues { $0 as? String })
        case 400...499 where response.status != 429:
            return .refused("\(response.status) \(object["error"] as? String ?? "")")
        default: return .unavailable("\(response.status)", retryAfter: response.retryAfter)
        }
    }

    /// The refresh token Apple gives for an authorization code of `clientID`.
    func exchange(code: String, clientID: String) -> Answer {
        post(settings.appleTokenURL, clientID: clientID, form: [("code", code), ("grant_type", "authorization_code")])
    }

    func revoke(refreshToken: String, clientID: String) -> Answer {
        post(settings.appleRevokeURL, clientID: clientID, form: [("token", refreshToken), ("token_type_hint", "refresh_token")])
    }

    /// application/x-www-form-urlencoded: unreserved characters as they are, the rest %XX.
    static func formEncoded(_ text: String) -> String {
        text.utf8.map { byte in
            let c = Character(Unicode.Scalar(byte))
            return byte < 0x80 && (c.isLetter || c.isNumber || "-._~".contains(c)) ? String(c) : String(format: "%%%02X", byte)
        }.joined()
    }
}

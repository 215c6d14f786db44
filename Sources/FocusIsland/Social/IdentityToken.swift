// IdentityToken: an OpenID Connect ID token (a compact JWS) checked as Apple and Google say an
// app server must: RS256 by a key of the provider's set (KeySet), `iss` the provider's, `aud`
// one of the configured client ids, `exp` not passed and `iat` not in the future (each within the
// clock skew), the nonce (Apple: the claim is the SHA-256 hex of the nonce the app sent; Google:
// the claim equals it when the app sends one), a subject. Each refusal is a 401 problem with its
// own code (docs/errors.md). What it answers are the verified claims, passed to SQL as they are.
import Foundation

/// The providers whose ID tokens the server verifies.
public enum IdentityProvider: String, Sendable, CaseIterable {
    case apple, google

    /// The `iss` values its tokens carry.
    var issuers: Set<String> {
        switch self {
        case .apple: ["https://appleid.apple.com"]
        case .google: ["https://accounts.google.com", "accounts.google.com"]
        }
    }
}

/// What a verified ID token says (params.identity for SQL).
struct VerifiedIdentity: Sendable, Equatable {
    let provider: IdentityProvider
    let subject: String
    let email: String?
    let emailVerified: Bool
    let isPrivateEmail: Bool
    /// The client id the token was issued for (its `aud` among the configured ones).
    let clientID: String
    let name: String?
    /// Apple's refresh token from an exchanged authorization code (AppleClient).
    var refreshToken: String?

    /// The JSON text api.verified_identity reads.
    var json: String {
        var members: [String: Any] = [
            "provider": provider.rawValue, "subject": subject, "client_id": clientID,
            "email_verified": emailVerified, "is_private_email": isPrivateEmail,
        ]
        if let email { members["email"] = email }
        if let name { members["name"] = name }
        if let refreshToken { members["refresh_token"] = refreshToken }
        let data = (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Reading JSON members as ID tokens write them.
enum JSONValue {
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// A NumericDate (seconds since 1970), whole or not.
    static func number(_ value: Any?) -> Double? {
        (value as? NSNumber)?.doubleValue
    }

    /// A boolean claim: Apple writes email_verified and is_private_email as true or "true".
    static func flag(_ value: Any?) -> Bool {
        if let text = value as? String { return text == "true" }
        if let number = value as? NSNumber { return number.boolValue }
        return false
    }
}

enum IdentityToken {
    static func invalid(_ detail: String) -> Problem { Problem(401, "identity_token_invalid", detail) }

    /// The claims of `token` once every check passed; `nonce` is what the app sent (nil: none).
    static func verify(
        _ token: String, provider: IdentityProvider, settings: SocialSettings.Provider, keys: KeySet, nonce: String?,
        now: Double, skew: Double
    ) throws(Problem) -> VerifiedIdentity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = JSONValue.object(headerBytes), let claims = JSONValue.object(claimBytes)
        else { throw invalid("The ID token is not a signed JWT.") }
        guard header["alg"] as? String == "RS256", let keyID = header["kid"] as? String else {
            throw invalid("The ID token is not signed with RS256 by a named key.")
        }
        let key = try keys.key(id: keyID)
        guard key.verifies(signature, of: Array((parts[0] + "." + parts[1]).utf8)) else {
            throw invalid("The ID token's signature is wrong.")
        }
        guard let issuer = claims["iss"] as? String, provider.issuers.contains(issuer) else {
            throw Problem(401, "identity_token_wrong_issuer", "The ID token is not from \(provider.rawValue).")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [Any])?.compactMap { $0 as? String } ?? []
        guard let clientID = audiences.first(where: settings.clientIDs.contains) else {
            throw Problem(401, "identity_token_wrong_audience", "The ID token was issued for another app.")
        }
        guard let expires = JSONValue.number(claims["exp"]), let issued = JSONValue.number(claims["iat"]) else {
            throw invalid("The ID token has no exp or iat.")
        }
        guard now < expires + skew else { throw Problem(401, "identity_token_expired", "The ID token has expired.") }
        guard issued <= now + skew else { throw invalid("The ID token was issued in the future.") }
        let claimed = claims["nonce"] as? String
        switch provider {
        case .apple:
            guard let nonce, let claimed, claimed == SHA256.hex(nonce) else {
                throw Problem(401, "identity_nonce_mismatch", "The ID token's nonce is not the SHA-256 of the nonce sent.")
            }
        case .google:
            if let nonce, claimed != nonce {
                throw Problem(401, "identity_nonce_mismatch", "The ID token's nonce is not the nonce sent.")
            }
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty, subject.count <= 255 else {
            throw invalid("The ID token names no subject.")
        }
        let email = (claims["email"] as? String).flatMap { $0.isEmpty || $0.count > 254 ? nil : $0 }
        return VerifiedIdentity(
            provider: provider, subject: subject, email: email, emailVerified: JSONValue.flag(claims["email_verified"]),
            isPrivateEmail: JSONValue.flag(claims["is_private_email"]), clientID: clientID,
            name: (claims["name"] as? String).map { String($0.prefix(100)) }, refreshToken: nil)
    }
}

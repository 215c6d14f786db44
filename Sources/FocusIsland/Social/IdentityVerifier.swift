// IdentityVerifier: the server's one verifier of Apple and Google ID tokens (docs/security.md,
// "Sign in with Apple and Google"): a key set per configured provider (KeySet), the token's
// checks (IdentityToken), and, for Apple, the authorization code exchanged for a refresh token
// (AppleClient). It decides nothing about accounts: what it verified goes to SQL
// (HTTP/Identity.swift), which does.
import CCurl
import Foundation

public final class IdentityVerifier: Sendable {
    let settings: SocialSettings
    private let keySets: [IdentityProvider: KeySet]
    private let apple: AppleClient?
    private let logger: Logger

    public init(settings: SocialSettings, logger: Logger) throws(PushError) {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        self.settings = settings
        self.logger = logger
        var keySets: [IdentityProvider: KeySet] = [:]
        for provider in IdentityProvider.allCases {
            guard let configured = settings.provider(provider) else { continue }
            keySets[provider] = KeySet(
                url: configured.jwksURL, caFile: settings.caFile, refresh: settings.keysRefresh,
                unknownKeyInterval: settings.unknownKeyInterval, logger: logger)
        }
        self.keySets = keySets
        apple = try AppleClient(settings: settings)
    }

    /// The verified identity of `idToken` as JSON text for params.identity, with Apple's refresh
    /// token when `authorizationCode` was given and Apple exchanged it. 503
    /// sign_in_provider_unavailable when the provider is not configured; the token's own
    /// problems (IdentityToken); 400 invalid_authorization_code when Apple refuses the code. A
    /// code Apple cannot take now (or with no key to ask with) is logged and left out: the
    /// sign-in goes on, with no refresh token to revoke later.
    func verify(
        _ provider: IdentityProvider, idToken: String, nonce: String?, authorizationCode: String?
    ) throws(Problem) -> String {
        guard let configured = settings.provider(provider), let keys = keySets[provider] else {
            throw Problem(503, "sign_in_provider_unavailable", "Sign in with \(provider.rawValue) is not available on this server.")
        }
        var identity = try IdentityToken.verify(
            idToken, provider: provider, settings: configured, keys: keys, nonce: nonce,
            now: Date().timeIntervalSince1970, skew: settings.clockSkew)
        if provider == .apple, let code = authorizationCode {
            if let apple {
                switch apple.exchange(code: code, clientID: identity.clientID) {
                case .ok(let answer): identity.refreshToken = answer["refresh_token"]
                case .refused(let why):
                    logger.info("social sign-in: Apple refused the authorization code: \(why)")
                    throw Problem(400, "invalid_authorization_code", "Apple refused the authorization code; sign in again.")
                case .unavailable(let why, _):
                    logger.error("social sign-in: exchanging an authorization code: \(why)")
                }
            } else {
                logger.info("social sign-in: an authorization code came, but no APPLE_SIGN_IN_KEY_FILE is set to exchange it")
            }
        }
        return identity.json
    }
}

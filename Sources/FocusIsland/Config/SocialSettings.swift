// SocialSettings: Sign in with Apple and Google from the environment (docs/operations.md,
// "Sign in with Apple and Google"): each provider's client ids (the audiences its ID tokens
// must name; unset: that provider's routes answer 503 sign_in_provider_unavailable) and JWKS
// URL, the refresh of the keys, and Apple's token and revoke endpoints with the Sign in with
// Apple key that signs the client secret (ES256).

public struct SocialSettings: Sendable, Equatable {
    public struct Provider: Sendable, Equatable {
        /// The client ids (bundle ids, OAuth client ids) an ID token's `aud` must name one of.
        public var clientIDs: [String]
        /// Where the provider publishes its signing keys (a JWK set).
        public var jwksURL: String

        public init(clientIDs: [String], jwksURL: String) {
            self.clientIDs = clientIDs
            self.jwksURL = jwksURL
        }
    }

    /// APPLE_CLIENT_IDS, APPLE_JWKS_URL; nil: Sign in with Apple off.
    public var apple: Provider?
    /// GOOGLE_CLIENT_IDS, GOOGLE_JWKS_URL; nil: Sign in with Google off.
    public var google: Provider?
    /// SOCIAL_CA_FILE: a PEM bundle trusted instead of the system's (a loopback peer in tests).
    public var caFile: String?
    /// SOCIAL_KEYS_REFRESH: seconds a fetched key set is used before it is fetched again.
    public var keysRefresh = 6 * 3600.0
    /// Seconds between two fetches for a key id the set lacks (a provider's new key): at most
    /// one a minute, so tokens with made-up key ids cannot make the server hammer the provider.
    public var unknownKeyInterval = 60.0
    /// Seconds of clock difference allowed on exp and iat.
    public var clockSkew = 60.0
    /// APPLE_TOKEN_URL: where an authorization code is exchanged for a refresh token.
    public var appleTokenURL = "https://appleid.apple.com/auth/token"
    /// APPLE_REVOKE_URL: where erasure's refresh tokens are revoked (`focus-island apple-revoke`).
    public var appleRevokeURL = "https://appleid.apple.com/auth/revoke"
    /// APPLE_TEAM_ID, APPLE_SIGN_IN_KEY_ID, APPLE_SIGN_IN_KEY_FILE (a .p8): the client secret's
    /// signer; nil: no code is exchanged (a sign-in still works, nothing to revoke later).
    public var appleKey: AppleKey?

    public struct AppleKey: Sendable, Equatable {
        public var teamID: String
        public var keyID: String
        public var keyFile: String

        public init(teamID: String, keyID: String, keyFile: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.keyFile = keyFile
        }
    }

    public init() {}

    public init(environment env: [String: String]) throws(ConfigurationError) {
        func value(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        func list(_ name: String) -> [String]? {
            value(name).map { $0.split(separator: ",").map { String($0).trimming(" \t") }.filter { !$0.isEmpty } }
        }
        func url(_ name: String, _ fallback: String) throws(ConfigurationError) -> String {
            let text = value(name) ?? fallback
            guard text.hasPrefix("https://") else { throw ConfigurationError(variable: name, reason: "must be an https URL") }
            return text
        }
        if let ids = list("APPLE_CLIENT_IDS"), !ids.isEmpty {
            apple = Provider(clientIDs: ids, jwksURL: try url("APPLE_JWKS_URL", "https://appleid.apple.com/auth/keys"))
        }
        if let ids = list("GOOGLE_CLIENT_IDS"), !ids.isEmpty {
            google = Provider(clientIDs: ids, jwksURL: try url("GOOGLE_JWKS_URL", "https://www.googleapis.com/oauth2/v3/certs"))
        }
        caFile = value("SOCIAL_CA_FILE")
        if let text = value("SOCIAL_KEYS_REFRESH") {
            guard let seconds = Double(text), seconds >= 60, seconds <= 86_400 else {
                throw ConfigurationError(variable: "SOCIAL_KEYS_REFRESH", reason: "must be seconds from 60 to 86400")
            }
            keysRefresh = seconds
        }
        appleTokenURL = try url("APPLE_TOKEN_URL", appleTokenURL)
        appleRevokeURL = try url("APPLE_REVOKE_URL", appleRevokeURL)
        if let keyFile = value("APPLE_SIGN_IN_KEY_FILE") {
            guard let teamID = value("APPLE_TEAM_ID"), let keyID = value("APPLE_SIGN_IN_KEY_ID") else {
                throw ConfigurationError(
                    variable: "APPLE_SIGN_IN_KEY_FILE", reason: "needs APPLE_TEAM_ID and APPLE_SIGN_IN_KEY_ID")
            }
            appleKey = AppleKey(teamID: teamID, keyID: keyID, keyFile: keyFile)
        }
    }

    func provider(_ provider: IdentityProvider) -> Provider? {
        switch provider {
        case .apple: apple
        case .google: google
        }
    }
}

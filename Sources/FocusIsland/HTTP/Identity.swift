// Identity: the stage that verifies a social sign-in's ID token before its statement runs, for
// the routes that take one (Pipeline.identityRoutes), and passes what it verified as
// params.identity (JSON text; a client's own ?identity= is dropped in Arguments.swift). It
// verifies only when the body holds what verification needs (a string id_token, and for Apple a
// nonce); without them it passes nothing and SQL names the missing field. Who the identity signs
// in as is SQL's (sql/api/014_social_sign_in.sql).

extension Pipeline {
    /// The functions whose body may carry an ID token, and the provider it must come from; nil:
    /// the body's `provider` names it (linking an identity, or deleting the account without a password).
    static let identityRoutes: [String: IdentityProvider?] = [
        "api.auth_apple_login": .apple, "api.auth_google_login": .google, "api.me_identities_create": nil,
        "api.me_delete": nil,
    ]

    /// params.identity for `route`, or nil when it takes none or the body lacks a token.
    func identity(_ route: Route, _ request: Request) throws(Problem) -> String? {
        guard case .sql(let function) = route.action, let named = Self.identityRoutes[function],
            let body = JSONValue.object(Array(request.body))
        else { return nil }
        guard let provider = named ?? (body["provider"] as? String).flatMap(IdentityProvider.init(rawValue:)),
            let idToken = body["id_token"] as? String, idToken.utf8.count <= 8192
        else { return nil }
        let nonce = body["nonce"] as? String
        if provider == .apple && nonce == nil { return nil }
        guard let identities else {
            throw Problem(503, "sign_in_provider_unavailable", "Sign in with \(provider.rawValue) is not available on this server.")
        }
        return try identities.verify(
            provider, idToken: idToken, nonce: nonce, authorizationCode: body["authorization_code"] as? String)
    }
}

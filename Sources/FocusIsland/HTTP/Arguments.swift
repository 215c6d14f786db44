// Arguments: a statement's params ($2): the query, then the path parameters, then what only the
// server sets per client (a client's own value of these names is dropped, so it cannot pose as
// another): its address, its user agent, its X-Client-Version (as sent: SQL reads it), its
// Idempotency-Key (IdempotencyKey.swift) and the identity a social sign-in's token verified
// (Identity.swift).

extension Pipeline {
    /// What `parameters` adds per client; no shared (cached) answer depends on them.
    static let perClientParameters: Set<String> = [
        "client_ip", "user_agent", "client_version", "idempotency_key", "seal_key", "identity",
    ]

    static func parameters(_ request: Request, path: [String: String]) -> [String: String] {
        var merged = path.isEmpty ? request.query : request.query.merging(path) { _, path in path }
        // The address login throttling counts by, and the label of a token's device (GET /me/tokens).
        merged["client_ip"] = request.clientAddress
        merged["user_agent"] = request.header("user-agent")
        // The app and version a sign-in is recorded with (api.record_sign_in, docs/operations.md).
        merged["client_version"] = request.header("x-client-version")
        // The Idempotency-Key header, and only the header; with it, the seal key.
        merged["idempotency_key"] = nil
        merged["identity"] = nil
        for (name, value) in IdempotencyKey.parameters(request) { merged[name] = value }
        return merged
    }
}

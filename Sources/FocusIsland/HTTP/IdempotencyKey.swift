// IdempotencyKey: a request's Idempotency-Key header, and only the header: its presence picks
// the route's keyed statement (through api.idempotent, Route.keyedStatement), and it adds the
// params that statement reads. api.idempotent validates the key, keeps and replays the answer.

enum IdempotencyKey {
    static func of(_ request: Request) -> String? { request.header("idempotency-key") }

    /// The params a key adds: the key itself, and the seal key of stored answers that carry
    /// secrets (SealKey.swift); none without a key.
    static func parameters(_ request: Request) -> [String: String] {
        guard let key = of(request) else { return [:] }
        return ["idempotency_key": key, "seal_key": SealKey.value]
    }
}

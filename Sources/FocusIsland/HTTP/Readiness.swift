// Readiness: GET /ready: 503 `draining` once the server's stop began (a balancer's health check
// takes a stopping instance out while it finishes its work), else what api.ready says; any
// failure to ask is 503 `not_ready`.

extension Pipeline {
    func ready() -> Response {
        if drain?.draining == true { return Problem(503, "draining", "The server is stopping.").response }
        do {
            let rows = try pool.withConnection { connection throws(DatabaseError) in
                try connection.executePrepared("api.ready", "select api.ready()::text", [])
            }
            guard let body = rows.first?.first ?? nil else { throw DatabaseError(sqlState: "XX000", message: "no row") }
            return .json(200, body)
        } catch {
            logger.error("/ready: \(error)")
            return Problem(503, "not_ready", "The database is not reachable or not migrated.").response
        }
    }
}

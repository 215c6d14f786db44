// Replica: which pool a route's statement runs on: the read replica's (READ_DATABASE_URL) for a
// route that reads shared data only (Route.reads), else the primary's.

extension Pipeline {
    func pool(for route: Route, _ request: Request) -> ConnectionPool {
        let replica =
            switch route.reads {
            case .primary: false
            case .replica: true
            case .replicaWhen(let name, let value): request.query[name] == value
            }
        return replica ? readPool ?? pool : pool
    }
}

// Credentials: the bearer token a route needs, or 401 before anything runs when a bearer
// route's request has none. Whether a token signs anyone in is SQL's (api.authenticate).

enum Credentials {
    static func token(_ request: Request, for route: Route) throws(Problem) -> String? {
        let token = request.bearerToken
        if route.access == .bearer && token == nil {
            throw Problem(401, "unauthorized", "Sign in: this needs an Authorization: Bearer token.")
        }
        return token
    }
}

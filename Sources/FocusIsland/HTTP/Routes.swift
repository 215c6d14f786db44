// Routes: the API's table of contents (../shared/API.md). Each line: method, path template,
// the one SQL function that answers it, who may call it, the success status, the body it takes.
// The function may choose another status (e.g. 200 instead of 201 for a replay).

public enum Routes {
    public static let all: [Route] = [
        // Service
        Route("GET", "/health", .health, access: .public),
        Route("GET", "/ready", .ready, access: .public),

        // Accounts
        Route("POST", "/auth/register", .sql("api.register"), access: .public, status: 201, body: .json),
        Route("POST", "/auth/login", .sql("api.login"), access: .public, body: .json),
        Route("POST", "/auth/logout", .sql("api.logout"), status: 204),

        // Profile
        Route("GET", "/me", .sql("api.me")),
        Route("PATCH", "/me", .sql("api.update_me"), body: .json),
    ]
}

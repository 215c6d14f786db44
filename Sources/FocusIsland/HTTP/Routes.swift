// Routes: the API's table of contents (../shared/API.md). Each line: method, path template,
// the one SQL function that answers it, who may call it, the success status, the body it takes.
// The function may choose another status (e.g. 200 instead of 201 for a replay).

public enum Routes {
    /// Sync bodies carry the phone's known ids: 10,000 UUIDs fit in 1 MiB.
    static let syncBodyLimit = 1 << 20

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

        // Shop and inventory
        Route("GET", "/shop/items", .sql("api.shop_items"), access: .public),
        Route("POST", "/sync/shop-items", .sql("api.sync_shop_items"), access: .public, body: .json,
              bodyLimit: syncBodyLimit),
        Route("POST", "/shop/purchases", .sql("api.purchase"), status: 201, body: .json),
        Route("GET", "/me/items", .sql("api.my_items")),
        Route("PUT", "/me/selected/{kind}", .sql("api.select_item"), body: .json),

        // Focus sessions and tips
        Route("POST", "/focus-sessions/start", .sql("api.start_session"), status: 201, body: .json),
        Route("POST", "/focus-sessions/{id}/finish", .sql("api.finish_session")),
        Route("POST", "/focus-sessions", .sql("api.record_session"), status: 201, body: .json),
        Route("GET", "/focus-sessions", .sql("api.list_sessions")),
        Route("POST", "/focus-sessions/{id}/rating", .sql("api.rate_session"), body: .json),
        Route("GET", "/me/stats", .sql("api.my_stats")),
        Route("POST", "/sync/mindfulness-tips", .sql("api.sync_tips"), access: .public, body: .json,
              bodyLimit: syncBodyLimit),
        // The literal path the seed documents name (/Sync/MindfulnessTips).
        Route("POST", "/Sync/MindfulnessTips", .sql("api.sync_tips"), access: .public, body: .json,
              bodyLimit: syncBodyLimit),

        // Friends
        Route("GET", "/friends", .sql("api.friends")),
        Route("DELETE", "/friends/{user_id}", .sql("api.remove_friend"), status: 204),
        Route("GET", "/friend-requests", .sql("api.friend_requests")),
        Route("POST", "/friend-requests", .sql("api.ask_friend"), status: 201, body: .json),
        Route("POST", "/friend-requests/{id}/accept", .sql("api.accept_friend")),
        Route("POST", "/friend-requests/{id}/decline", .sql("api.decline_friend"), status: 204),
        Route("DELETE", "/friend-requests/{id}", .sql("api.cancel_friend_request"), status: 204),
        Route("GET", "/users/{id}", .sql("api.user_island")),
        Route("GET", "/leaderboards/{period}", .sql("api.leaderboard")),

        // Avatars
        Route("PUT", "/me/avatar", .sql("api.put_avatar"), status: 204, body: .image, bodyLimit: 256 * 1024),
        Route("DELETE", "/me/avatar", .sql("api.delete_avatar"), status: 204),
        Route("GET", "/users/{id}/avatar", .sql("api.avatar"), response: .file),
    ]
}

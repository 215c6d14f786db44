// Routes: the server's table of contents, the one list every request is matched against
// (Router): the service routes, the web pages and files, then the API (docs/openapi.json
// describes the API and the service routes, Route.documented). Each API line: method, path
// template, the one SQL function that answers it, who may call it, the success status, the
// body it takes.
// The function may choose another status (e.g. 200 instead of 201 for a replay).
// `reads: .replica`: shared data only (catalog, tips, the global board, avatars), answered by the
// read replica when READ_DATABASE_URL is set; what a user just wrote is always read from the
// primary. A replica is behind by its replication lag (milliseconds on one network).

public enum Routes {
    /// Sync bodies carry the phone's known ids: 10,000 UUIDs fit in 1 MiB.
    static let syncBodyLimit = 1 << 20
    /// Image bodies are held to a memory ceiling only: what an avatar may be (256 KiB) is the
    /// database's rule, app.avatar_max_bytes(), which api.me_avatar_update answers with 413.
    static let imageBodyLimit = 1 << 20

    /// Every route, the one list the router matches: the service routes, then the API's.
    public static let all: [Route] = service + api

    /// The API: each route answered by one function of schema `api`.
    static let api: [Route] = [
        // Accounts
        Route("POST", "/auth/register", .sql("api.auth_register"), access: .public, status: 201, body: .json),
        Route("POST", "/auth/login", .sql("api.auth_login"), access: .public, body: .json),
        Route("POST", "/auth/logout", .sql("api.auth_logout"), status: 204),
        Route(
            "POST", "/auth/password-reset", .sql("api.auth_password_reset_create"), access: .public, status: 202,
            body: .json),
        Route(
            "POST", "/auth/password-reset/confirm", .sql("api.auth_password_reset_confirm"), access: .public,
            body: .json),

        // Account lifecycle and devices
        Route("DELETE", "/me", .sql("api.me_delete"), status: 204, body: .json, admission: .always),
        Route("GET", "/me/export", .sql("api.me_export_get"), admission: .always),
        Route("POST", "/me/password", .sql("api.me_password_update"), status: 204, body: .json),
        Route("POST", "/me/email", .sql("api.me_email_update"), body: .json),
        Route("POST", "/me/email/verify", .sql("api.me_email_verification_confirm"), body: .json),
        Route("POST", "/me/email/resend", .sql("api.me_email_verification_create"), status: 202),
        Route("GET", "/me/tokens", .sql("api.me_tokens_list")),
        Route("DELETE", "/me/tokens/{id}", .sql("api.me_tokens_delete"), status: 204),

        // Push tokens (docs/push.md)
        Route("PUT", "/me/push-tokens", .sql("api.me_push_tokens_update"), body: .json),
        Route("DELETE", "/me/push-tokens/{token}", .sql("api.me_push_tokens_delete"), status: 204),

        // Profile
        Route("GET", "/me", .sql("api.me_get")),
        Route("PATCH", "/me", .sql("api.me_update"), body: .json),

        // Shop and inventory
        Route("GET", "/shop/items", .sql("api.shop_items_list"), access: .public, reads: .replica),
        Route(
            "POST", "/sync/shop-items", .sql("api.shop_items_sync"), access: .public, body: .json,
            bodyLimit: syncBodyLimit, reads: .replica),
        Route("POST", "/shop/purchases", .sql("api.shop_purchases_create"), status: 201, body: .json),
        Route("GET", "/me/items", .sql("api.me_items_list")),
        Route("PUT", "/me/selected/{kind}", .sql("api.me_selected_update"), body: .json),

        // Focus sessions and tips
        Route("POST", "/focus-sessions/start", .sql("api.focus_sessions_start"), status: 201, body: .json),
        Route("POST", "/focus-sessions/{id}/finish", .sql("api.focus_sessions_finish"), body: .optionalJSON),
        Route("POST", "/focus-sessions", .sql("api.focus_sessions_create"), status: 201, body: .json),
        Route("POST", "/focus-sessions/batch", .sql("api.focus_sessions_batch_create"), body: .json),
        // 204 when no session runs; the running session is an explicit 200 from SQL.
        Route("GET", "/focus-sessions/current", .sql("api.focus_sessions_current_get"), status: 204),
        Route("POST", "/focus-sessions/{id}/abandon", .sql("api.focus_sessions_abandon")),
        Route("GET", "/focus-sessions", .sql("api.focus_sessions_list")),
        Route("POST", "/focus-sessions/{id}/rating", .sql("api.focus_sessions_rate"), body: .json),
        Route("GET", "/me/stats", .sql("api.me_stats_get")),
        Route("GET", "/me/stats/daily", .sql("api.me_stats_daily_get")),
        Route("GET", "/me/stats/tags", .sql("api.me_stats_tags_get")),
        Route(
            "POST", "/sync/mindfulness-tips", .sql("api.mindfulness_tips_sync"), access: .public, body: .json,
            bodyLimit: syncBodyLimit, reads: .replica),
        // The literal path the seed documents name (/Sync/MindfulnessTips).
        Route(
            "POST", "/Sync/MindfulnessTips", .sql("api.mindfulness_tips_sync"), access: .public, body: .json,
            bodyLimit: syncBodyLimit, reads: .replica),

        // Friends
        Route("GET", "/friends", .sql("api.friends_list")),
        Route("DELETE", "/friends/{user_id}", .sql("api.friends_delete"), status: 204),
        Route("GET", "/friend-requests", .sql("api.friend_requests_list")),
        Route("POST", "/friend-requests", .sql("api.friend_requests_create"), status: 201, body: .json),
        Route("POST", "/friend-requests/{id}/accept", .sql("api.friend_requests_accept")),
        Route("POST", "/friend-requests/{id}/decline", .sql("api.friend_requests_decline"), status: 204),
        Route("DELETE", "/friend-requests/{id}", .sql("api.friend_requests_delete"), status: 204),
        Route("GET", "/users/{id}", .sql("api.users_get")),
        Route(
            "GET", "/leaderboards/{period}", .sql("api.leaderboards_get"),
            reads: .replicaWhen(parameter: "scope", is: "global")),

        // Blocks and reports
        Route("POST", "/users/{id}/block", .sql("api.users_block_create"), status: 204),
        Route("DELETE", "/users/{id}/block", .sql("api.users_block_delete"), status: 204),
        Route("GET", "/me/blocks", .sql("api.me_blocks_list")),
        Route("POST", "/users/{id}/report", .sql("api.users_report_create"), status: 201, body: .json),

        // Moderation: moderators only (app.moderators, granted by a DBA); 403 not_moderator for others.
        Route("GET", "/moderation/reports", .sql("api.moderation_reports_list")),
        Route("POST", "/moderation/reports/{id}/resolve", .sql("api.moderation_reports_resolve"), body: .json),
        Route("POST", "/moderation/users/{id}/rename", .sql("api.moderation_users_rename"), body: .json),
        Route("DELETE", "/moderation/users/{id}/avatar", .sql("api.moderation_users_avatar_delete"), body: .json),
        Route("POST", "/moderation/users/{id}/suspend", .sql("api.moderation_users_suspend"), body: .json),
        Route("POST", "/moderation/users/{id}/ban", .sql("api.moderation_users_ban"), body: .json),

        // Avatars
        Route("PUT", "/me/avatar", .sql("api.me_avatar_update"), status: 204, body: .image, bodyLimit: imageBodyLimit),
        Route("DELETE", "/me/avatar", .sql("api.me_avatar_delete"), status: 204),
        Route("GET", "/users/{id}/avatar", .sql("api.users_avatar_get"), response: .file, reads: .replica),

        // Release controls: public, the same for everyone, kept in memory (SharedCache), and
        // what admission reads (Live/ReleaseControls.swift); answered whatever the app's version.
        Route("GET", "/config", .sql("api.config_get"), access: .public, admission: .always),

        // Focus rooms
        Route("POST", "/rooms", .sql("api.rooms_create"), status: 201, body: .json),
        Route("POST", "/rooms/{code}/join", .sql("api.rooms_join")),
        Route("POST", "/rooms/{id}/leave", .sql("api.rooms_leave")),
        Route("POST", "/rooms/{id}/start", .sql("api.rooms_start")),
        Route("GET", "/rooms/{id}", .sql("api.rooms_get")),
        Route("GET", "/rooms", .sql("api.rooms_list")),

        // Achievements: the caller's with progress, a friend's unlocked ones
        Route("GET", "/me/achievements", .sql("api.me_achievements_list")),
        Route("GET", "/users/{id}/achievements", .sql("api.users_achievements_list")),
        // Gifts between friends (docs/gifts.md)
        Route("POST", "/gifts", .sql("api.gifts_create"), status: 201, body: .json),
        Route("POST", "/gifts/{id}/accept", .sql("api.gifts_accept")),
        Route("POST", "/gifts/{id}/decline", .sql("api.gifts_decline")),
        Route("GET", "/gifts/received", .sql("api.gifts_received_list")),
        Route("GET", "/gifts/sent", .sql("api.gifts_sent_list")),
        // Streak freezes (docs/streaks.md); /me/stats shows them and applies the ones due.
        Route("POST", "/me/streak-freezes", .sql("api.me_streak_freezes_create"), status: 201),

        // Live events: JSON here; over the socket also an SSE stream or a waiting long-poll
        // (Server/MHD/EventsEndpoint.swift), which first call `eventsStreamOpen`.
        Route("GET", "/events", .sql("api.events_list")),
    ]

    /// The server's own routes: health, readiness, the contract, GET /events held open, the
    /// files and the web pages (Web/WebPages.swift, each page's line there).
    static let service: [Route] =
        [
            Route("GET", "/health", .health, access: .public, admission: .always),
            Route("GET", "/ready", .ready, access: .public, admission: .always),
            Route("GET", "/openapi.json", .openAPI, access: .public),
            // Held open at the socket (an SSE stream, a waiting long-poll), else answered by the
            // SQL route of the same method and path, GET /events in `all` (Action.events).
            Route("GET", "/events", .events),
            // Files: everything under the prefix, GET and HEAD; no release controls, no body rule.
            Route("GET", "/assets/{name}", .asset, access: .public, admission: .always),
            Route("GET", "/web/{name}", .webFile, access: .public, admission: .always),
        ] + WebPages.all.map(\.entry)

    /// Functions whose answers hold item or tip text (api.item_json, api.tip_json): the pipeline
    /// negotiates their language from Accept-Language, their statement sets it for SQL
    /// (api.use_language), and they answer with Content-Language and Vary: Accept-Language
    /// (docs/languages.md). RouteTableDatabaseTests checks this set against the SQL that reaches
    /// those two functions.
    public static let localized: Set<String> = [
        "api.auth_register", "api.auth_login", "api.auth_password_reset_confirm",
        "api.me_export_get", "api.me_email_update", "api.me_email_verification_confirm",
        "api.me_get", "api.me_update", "api.me_selected_update",
        "api.shop_items_list", "api.shop_items_sync", "api.shop_purchases_create", "api.me_items_list",
        "api.focus_sessions_rate", "api.focus_sessions_batch_create", "api.mindfulness_tips_sync",
        "api.friends_list", "api.friend_requests_create", "api.friend_requests_accept", "api.users_get",
        "api.gifts_create", "api.gifts_accept", "api.gifts_decline", "api.gifts_received_list", "api.gifts_sent_list",
    ]

    /// What the server calls at GET /events before it holds a stream or a long-poll open:
    /// the user, their stream limit and the starting cursor.
    public static let eventsStreamOpen = Route("GET", "/events", .sql("api.events_stream_open"))

    /// What admission reads the release controls from when they are not in memory.
    static let configGet = Route("GET", "/config", .sql("api.config_get"), access: .public, admission: .always)
}

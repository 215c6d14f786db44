// Idempotency-Key end to end, for every POST and DELETE that changes state: the same key and
// request replay the first answer (status, body, ETag, Retry-After) and change nothing in the
// database; the same key with another body or route is 422 idempotency_key_reused and changes
// nothing either. Racing requests with one key execute once. Through both transports.
import Foundation
import Testing

@testable import FocusIsland

/// One state-changing request, ready to send, and another request to try with the same key.
struct KeyedRequest: Sendable {
    var method: String
    var path: String
    var token: String?
    var json: String?
    var other: (method: String, path: String, json: String?)
    /// Ids and emails whose rows the request may change (the database check looks at those only,
    /// as other tests run at the same time).
    var marks: [String]
}

@Suite struct IdempotencyHTTPTests {
    static let password = "correct horse"

    /// Every app table's rows that mention one of `marks`, as one digest (app.idempotency_keys
    /// left out: the first request's key is the one row a replay must not change either, but it
    /// is written by the first answer, before the digest is taken).
    static func fingerprint(_ marks: [String]) throws -> String? {
        let tables = try TestEnvironment.owner().execute(
            // Tables, not their partitions (read through the table, and dropped by the prune
            // job whenever a day expires).
            "select c.relname from pg_class c where c.relnamespace = 'app'::regnamespace and c.relkind in ('r', 'p') "
                + "and not c.relispartition and c.relname <> 'idempotency_keys' order by 1", []
        ).compactMap { $0.first ?? nil }
        let parts = tables.map { table in
            "select '\(table)' as t, md5(coalesce(string_agg(md5(to_jsonb(x)::text), '' order by md5(to_jsonb(x)::text)), '')) as h "
                + "from app.\(table) x where exists (select from unnest($1::text[]) m where strpos(to_jsonb(x)::text, m) > 0)"
                // report.created reaches every moderator whenever anyone reports: tests running
                // at the same time write them to this scenario's moderator too.
                + (table == "events" ? " and to_jsonb(x) ->> 'type' <> 'report.created'" : "")
        }
        let array = "{" + marks.map { "\"\($0)\"" }.joined(separator: ",") + "}"
        return try TestEnvironment.scalar(
            "select string_agg(t || ':' || h, ' ' order by t) from (" + parts.joined(separator: " union all ") + ") f",
            [array])
    }

    static func offline(_ id: String, endingAt end: Date, minutes: Double) -> String {
        #"{"id":"\#(id)","started_at":"\#((end - minutes * 60).rfc3339)","ended_at":"\#(end.rfc3339)"}"#
    }

    /// The routes, each with what it needs made first (without a key).
    static let scenarios: [String] = [
        "register", "login", "password-reset", "password-reset-confirm", "logout", "delete-me", "password", "email",
        "token-delete", "purchase", "start", "finish", "record", "batch", "abandon", "rate", "friend-delete",
        "friend-request", "accept", "decline", "cancel", "block", "unblock", "report", "avatar-delete",
        "email-verify", "email-resend", "moderation-resolve", "moderation-rename", "moderation-avatar-delete",
        "moderation-suspend", "moderation-ban",
        "finish-at",
        "push-token-delete",
        "room-open", "room-join", "room-leave", "room-start",
        "gift-send", "gift-accept", "gift-decline",
        "streak-freeze",
        "guest", "upgrade", "parental-consent", "parental-consent-confirm",
    ]

    /// The route each scenario replays. Every POST and DELETE in the route table that changes
    /// state has a scenario (checked below), so a new one cannot ship without its replay test.
    static let scenarioRoutes: [String: String] = [
        "register": "POST /auth/register", "login": "POST /auth/login", "password-reset": "POST /auth/password-reset",
        "password-reset-confirm": "POST /auth/password-reset/confirm", "logout": "POST /auth/logout",
        "delete-me": "DELETE /me", "password": "POST /me/password", "email": "POST /me/email",
        "token-delete": "DELETE /me/tokens/{id}", "purchase": "POST /shop/purchases",
        "start": "POST /focus-sessions/start", "finish": "POST /focus-sessions/{id}/finish",
        "record": "POST /focus-sessions", "batch": "POST /focus-sessions/batch",
        "abandon": "POST /focus-sessions/{id}/abandon", "rate": "POST /focus-sessions/{id}/rating",
        "friend-delete": "DELETE /friends/{user_id}", "friend-request": "POST /friend-requests",
        "accept": "POST /friend-requests/{id}/accept", "decline": "POST /friend-requests/{id}/decline",
        "cancel": "DELETE /friend-requests/{id}", "block": "POST /users/{id}/block",
        "unblock": "DELETE /users/{id}/block", "report": "POST /users/{id}/report", "avatar-delete": "DELETE /me/avatar",
        "email-verify": "POST /me/email/verify", "email-resend": "POST /me/email/resend",
        "moderation-resolve": "POST /moderation/reports/{id}/resolve", "moderation-rename": "POST /moderation/users/{id}/rename",
        "moderation-avatar-delete": "DELETE /moderation/users/{id}/avatar",
        "moderation-suspend": "POST /moderation/users/{id}/suspend", "moderation-ban": "POST /moderation/users/{id}/ban",
        "finish-at": "POST /focus-sessions/{id}/finish",
        "push-token-delete": "DELETE /me/push-tokens/{token}",
        "room-open": "POST /rooms", "room-join": "POST /rooms/{code}/join", "room-leave": "POST /rooms/{id}/leave",
        "room-start": "POST /rooms/{id}/start",
        "gift-send": "POST /gifts", "gift-accept": "POST /gifts/{id}/accept", "gift-decline": "POST /gifts/{id}/decline",
        "streak-freeze": "POST /me/streak-freezes",
        "guest": "POST /auth/guest", "upgrade": "POST /me/upgrade", "parental-consent": "POST /me/parental-consent",
        "parental-consent-confirm": "POST /parental-consent",
    ]
    /// POSTs that only read (a sync sends the client's state and gets the difference): a replay
    /// is the same read, so they need no scenario.
    static let readingPosts: Set<String> = ["POST /sync/shop-items", "POST /sync/mindfulness-tips", "POST /Sync/MindfulnessTips"]
    /// Routes whose replay is tested by a suite with a server configured for them: social sign-in
    /// needs the provider's keys (SocialSignInHTTPTests.aRetryWithTheSameKey).
    static let replayedElsewhere: Set<String> = ["POST /auth/apple", "POST /auth/google", "POST /me/identities"]

    @Test func everyPostAndDeleteThatChangesStateHasAReplayScenario() {
        let unsafe = Routes.all.filter { $0.documented && ($0.method == "POST" || $0.method == "DELETE") }
            .map { "\($0.method) \($0.template)" }
        let missing = unsafe.filter {
            !Self.readingPosts.contains($0) && !Self.scenarioRoutes.values.contains($0) && !Self.replayedElsewhere.contains($0)
        }
        #expect(missing == [], "add a scenario to IdempotencyHTTPTests for each")
        #expect(Set(Self.scenarios) == Set(Self.scenarioRoutes.keys))
    }

    static func prepare(_ scenario: String, _ client: Client) throws -> KeyedRequest {
        let me = try client.register("keyed")
        let marks = [me.id, me.email]
        func request(
            _ method: String, _ path: String, _ json: String?, other: (String, String, String?),
            token: String? = me.token, marks extra: [String] = []
        ) -> KeyedRequest {
            KeyedRequest(
                method: method, path: path, token: token, json: json, other: (other.0, other.1, other.2),
                marks: marks + extra)
        }
        func friend() throws -> Account { try client.register("other") }
        func ask(_ from: Account, _ to: Account) throws -> String {
            let asked = try client.send("POST", "/friend-requests", token: from.token, json: #"{"email":"\#(to.email)"}"#)
            return (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        }
        let now = try TestEnvironment.databaseNow()
        switch scenario {
        case "register":
            let email = TestEnvironment.email("newcomer")
            let body = #"{"email":"\#(email)","password":"\#(password)","display_name":"New"}"#
            let other = #"{"email":"\#(email)","password":"\#(password)","display_name":"Other"}"#
            return request("POST", "/auth/register", body, other: ("POST", "/auth/register", other), token: nil, marks: [email])
        case "login":
            return request(
                "POST", "/auth/login", #"{"email":"\#(me.email)","password":"\#(password)"}"#,
                other: ("POST", "/auth/login", #"{"email":"\#(me.email)","password":"wrong horse"}"#), token: nil)
        case "password-reset":
            let body = #"{"email":"\#(me.email)"}"#
            return request("POST", "/auth/password-reset", body, other: ("POST", "/auth/login", body), token: nil)
        case "password-reset-confirm":
            _ = try client.send("POST", "/auth/password-reset", json: #"{"email":"\#(me.email)"}"#)
            let body = #"{"email":"\#(me.email)","code":"00000000","new_password":"new horse 1"}"#
            let other = #"{"email":"\#(me.email)","code":"00000000","new_password":"new horse 2"}"#
            return request("POST", "/auth/password-reset/confirm", body, other: ("POST", "/auth/password-reset/confirm", other), token: nil)
        case "logout":
            return request("POST", "/auth/logout", nil, other: ("DELETE", "/me/avatar", nil))
        case "delete-me":
            return request(
                "DELETE", "/me", #"{"password":"\#(password)"}"#, other: ("DELETE", "/me", #"{"password":"wrong horse"}"#))
        case "password":
            let body = #"{"current_password":"\#(password)","new_password":"new horse 1"}"#
            let other = #"{"current_password":"\#(password)","new_password":"new horse 2"}"#
            return request("POST", "/me/password", body, other: ("POST", "/me/password", other))
        case "email":
            let email = TestEnvironment.email("moved")
            return request(
                "POST", "/me/email", #"{"password":"\#(password)","email":"\#(email)"}"#,
                other: ("POST", "/me/email", #"{"password":"\#(password)","email":"x\#(email)"}"#), marks: [email])
        case "email-verify", "email-resend":
            // A change of email waits for its code: confirm it, or have it mailed again.
            let email = TestEnvironment.email("verify")
            _ = try client.send("POST", "/me/email", token: me.token, json: #"{"password":"\#(password)","email":"\#(email)"}"#)
            if scenario == "email-resend" {
                return request("POST", "/me/email/resend", nil, other: ("POST", "/auth/logout", nil), marks: [email])
            }
            let code = try AccountSafetyHTTPTests.mailedCode(email) ?? ""
            return request(
                "POST", "/me/email/verify", #"{"code":"\#(code)"}"#,
                other: ("POST", "/me/email/verify", #"{"code":"00000000"}"#), marks: [email])
        case "token-delete":
            _ = try client.send("POST", "/auth/login", json: #"{"email":"\#(me.email)","password":"\#(password)"}"#)
            let tokens = try client.send("GET", "/me/tokens", token: me.token).json["tokens"] as? [[String: Any]] ?? []
            let ids = tokens.compactMap { $0["id"] as? String }
            return request("DELETE", "/me/tokens/\(ids.last ?? "")", nil, other: ("DELETE", "/me/tokens/\(ids.first ?? "")", nil))
        case "purchase":
            _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 1000, 'idempotency test')", [me.id])
            let items = try TestEnvironment.owner().execute(
                "select id::text from app.shop_items where not is_starter and active order by price limit 2", []
            ).compactMap { $0.first ?? nil }
            return request(
                "POST", "/shop/purchases", #"{"item_id":"\#(items[0])"}"#,
                other: ("POST", "/shop/purchases", #"{"item_id":"\#(items[1])"}"#))
        case "start":
            return request(
                "POST", "/focus-sessions/start", #"{"planned_minutes":25}"#,
                other: ("POST", "/focus-sessions/start", #"{"planned_minutes":30}"#))
        case "finish", "abandon":
            let started = try client.send("POST", "/focus-sessions/start", token: me.token, json: #"{"planned_minutes":25}"#)
            let id = startedID(started)
            return request(
                "POST", "/focus-sessions/\(id)/\(scenario)", nil,
                other: ("POST", "/focus-sessions/\(UUID().uuidString)/\(scenario)", nil))
        case "finish-at":
            // A stated end (finish {ended_at}); the other body states another one.
            let started = try client.send("POST", "/focus-sessions/start", token: me.token, json: #"{"planned_minutes":25}"#)
            let id = startedID(started)
            let at =
                try TestEnvironment.owner().execute(
                    """
                    select to_char((started_at + interval '30 seconds') at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                           to_char((started_at + interval '40 seconds') at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                    from app.focus_sessions where id = $1
                    """, [id]
                ).first ?? []
            return request(
                "POST", "/focus-sessions/\(id)/finish", #"{"ended_at":"\#(at.first.flatMap { $0 } ?? "")"}"#,
                other: ("POST", "/focus-sessions/\(id)/finish", #"{"ended_at":"\#(at.last.flatMap { $0 } ?? "")"}"#))
        case "record":
            return request(
                "POST", "/focus-sessions", offline(UUID().uuidString, endingAt: now - 600, minutes: 30),
                other: ("POST", "/focus-sessions", offline(UUID().uuidString, endingAt: now - 600, minutes: 30)))
        case "batch":
            let body = #"{"sessions":[\#(offline(UUID().uuidString, endingAt: now - 600, minutes: 30))]}"#
            let other = #"{"sessions":[\#(offline(UUID().uuidString, endingAt: now - 600, minutes: 30))]}"#
            return request("POST", "/focus-sessions/batch", body, other: ("POST", "/focus-sessions/batch", other))
        case "rate":
            let id = UUID().uuidString
            _ = try client.send(
                "POST", "/focus-sessions", token: me.token, json: offline(id, endingAt: now - 600, minutes: 30))
            return request(
                "POST", "/focus-sessions/\(id)/rating", #"{"rating":"fine"}"#,
                other: ("POST", "/focus-sessions/\(id)/rating", #"{"rating":"bad"}"#))
        case "friend-delete":
            let them = try friend()
            let id = try ask(me, them)
            _ = try client.send("POST", "/friend-requests/\(id)/accept", token: them.token)
            return request(
                "DELETE", "/friends/\(them.id)", nil, other: ("DELETE", "/friends/\(UUID().uuidString)", nil),
                marks: [them.id])
        case "friend-request":
            let them = try friend(), another = try friend()
            return request(
                "POST", "/friend-requests", #"{"email":"\#(them.email)"}"#,
                other: ("POST", "/friend-requests", #"{"email":"\#(another.email)"}"#), marks: [them.id, another.id])
        case "accept", "decline":
            let them = try friend()
            let id = try ask(them, me)
            return request(
                "POST", "/friend-requests/\(id)/\(scenario)", nil,
                other: ("POST", "/friend-requests/\(UUID().uuidString)/\(scenario)", nil), marks: [them.id])
        case "cancel":
            let them = try friend()
            let id = try ask(me, them)
            return request(
                "DELETE", "/friend-requests/\(id)", nil, other: ("DELETE", "/friend-requests/\(UUID().uuidString)", nil),
                marks: [them.id])
        case "block", "unblock":
            let them = try friend()
            if scenario == "unblock" { _ = try client.send("POST", "/users/\(them.id)/block", token: me.token) }
            let method = scenario == "block" ? "POST" : "DELETE"
            return request(
                method, "/users/\(them.id)/block", nil, other: (method, "/users/\(UUID().uuidString)/block", nil),
                marks: [them.id])
        case "report":
            let them = try friend()
            return request(
                "POST", "/users/\(them.id)/report", #"{"reason":"spam"}"#,
                other: ("POST", "/users/\(them.id)/report", #"{"reason":"other"}"#), marks: [them.id])
        case "moderation-resolve", "moderation-rename", "moderation-avatar-delete", "moderation-suspend", "moderation-ban":
            // The caller acts as a moderator (granted as a DBA does) on another user.
            _ = try TestEnvironment.owner().execute("insert into app.moderators (user_id, note) values ($1, 'replay')", [me.id])
            let them = try friend()
            let until = (now + 86_400).rfc3339, later = (now + 172_800).rfc3339
            switch scenario {
            case "moderation-resolve":
                let reporter = try friend()
                let reported = try client.send(
                    "POST", "/users/\(them.id)/report", token: reporter.token, json: #"{"reason":"spam"}"#)
                let id = (reported.json["report"] as? [String: Any])?["id"] as? String ?? ""
                return request(
                    "POST", "/moderation/reports/\(id)/resolve", #"{"status":"dismissed","reason":"no harm"}"#,
                    other: ("POST", "/moderation/reports/\(id)/resolve", #"{"status":"actioned","reason":"no harm"}"#),
                    marks: [them.id, reporter.id])
            case "moderation-rename":
                return request(
                    "POST", "/moderation/users/\(them.id)/rename", #"{"display_name":"Renamed","reason":"rude"}"#,
                    other: ("POST", "/moderation/users/\(them.id)/rename", #"{"display_name":"Other","reason":"rude"}"#),
                    marks: [them.id])
            case "moderation-avatar-delete":
                _ = try TestEnvironment.owner().execute(
                    "insert into app.avatars (user_id, content_type, data) values ($1, 'image/png', '\\x89504e470d0a1a0a00'::bytea)",
                    [them.id])
                return request(
                    "DELETE", "/moderation/users/\(them.id)/avatar", #"{"reason":"rude"}"#,
                    other: ("DELETE", "/moderation/users/\(them.id)/avatar", #"{"reason":"other"}"#), marks: [them.id])
            case "moderation-suspend":
                return request(
                    "POST", "/moderation/users/\(them.id)/suspend", #"{"until":"\#(until)","reason":"spam"}"#,
                    other: ("POST", "/moderation/users/\(them.id)/suspend", #"{"until":"\#(later)","reason":"spam"}"#),
                    marks: [them.id])
            default:
                return request(
                    "POST", "/moderation/users/\(them.id)/ban", #"{"reason":"spam"}"#,
                    other: ("POST", "/moderation/users/\(them.id)/ban", #"{"reason":"other"}"#), marks: [them.id])
            }
        case "avatar-delete":
            return request("DELETE", "/me/avatar", nil, other: ("POST", "/auth/logout", nil))
        case "push-token-delete":
            let tokens = [PushHTTPTests.apns(), PushHTTPTests.apns()]
            for token in tokens {
                _ = try client.send("PUT", "/me/push-tokens", token: me.token, json: PushHTTPTests.body(token))
            }
            return request(
                "DELETE", "/me/push-tokens/\(tokens[0])", nil, other: ("DELETE", "/me/push-tokens/\(tokens[1])", nil),
                marks: tokens)
        case "streak-freeze":
            _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 1000, 'idempotency test')", [me.id])
            return request("POST", "/me/streak-freezes", nil, other: ("DELETE", "/me/avatar", nil))
        case "room-open":
            return request("POST", "/rooms", #"{"planned_minutes":25}"#, other: ("POST", "/rooms", #"{"planned_minutes":30}"#))
        case "room-join", "room-leave", "room-start":
            // A friend and a room: theirs to join or leave, the caller's to start.
            let them = try friend()
            let asked = try ask(them, me)
            _ = try client.send("POST", "/friend-requests/\(asked)/accept", token: me.token)
            let host = scenario == "room-start" ? me : them, guest = scenario == "room-start" ? them : me
            let opened = try client.send("POST", "/rooms", token: host.token, json: #"{"planned_minutes":25}"#)
            let room = opened.json["room"] as? [String: Any] ?? [:]
            let id = room["id"] as? String ?? "", code = room["code"] as? String ?? ""
            if scenario == "room-join" {
                return request(
                    "POST", "/rooms/\(code)/join", nil, other: ("POST", "/rooms/ZZZZZZZZ/join", nil),
                    marks: [them.id])
            }
            _ = try client.send("POST", "/rooms/\(code)/join", token: guest.token)
            let action = scenario == "room-start" ? "start" : "leave"
            return request(
                "POST", "/rooms/\(id)/\(action)", nil, other: ("POST", "/rooms/\(UUID().uuidString)/\(action)", nil),
                marks: [them.id])
        case "gift-send", "gift-accept", "gift-decline":
            // A friend: the caller sends them coins, or accepts or declines their gift.
            let them = try friend()
            let asked = try ask(them, me)
            _ = try client.send("POST", "/friend-requests/\(asked)/accept", token: me.token)
            let giver = scenario == "gift-send" ? me : them, taker = scenario == "gift-send" ? them : me
            _ = try TestEnvironment.scalar("select app.grant_coins($1::uuid, 100, 'idempotency test')", [giver.id])
            if scenario == "gift-send" {
                return request(
                    "POST", "/gifts", #"{"to":"\#(them.id)","coins":10}"#,
                    other: ("POST", "/gifts", #"{"to":"\#(them.id)","coins":11}"#), marks: [them.id])
            }
            let sent = try client.send("POST", "/gifts", token: giver.token, json: #"{"to":"\#(taker.id)","coins":10}"#)
            let id = (sent.json["gift"] as? [String: Any])?["id"] as? String ?? ""
            let action = scenario == "gift-accept" ? "accept" : "decline"
            return request(
                "POST", "/gifts/\(id)/\(action)", nil, other: ("POST", "/gifts/\(UUID().uuidString)/\(action)", nil),
                marks: [them.id])
        case "guest":
            let name = "Keyed \(UUID().uuidString.prefix(8))"
            _ = try TestEnvironment.scalar("delete from app.guest_creations where client_ip in ('127.0.0.1', '::1')")
            return request(
                "POST", "/auth/guest", #"{"display_name":"\#(name)"}"#,
                other: ("POST", "/auth/guest", #"{"display_name":"Other"}"#), token: nil, marks: [name])
        case "upgrade":
            let (guest, _) = try GuestsHTTPTests.guest(client)
            let email = TestEnvironment.email("keyedguest")
            return request(
                "POST", "/me/upgrade", #"{"email":"\#(email)","password":"\#(password)"}"#,
                other: ("POST", "/me/upgrade", #"{"email":"other-\#(email)","password":"\#(password)"}"#), token: guest.token,
                marks: [guest.id, email])
        case "parental-consent", "parental-consent-confirm":
            // A child, made as a sign-up that gives a birth month ten years ago.
            let year = try #require(Int(try TestEnvironment.scalar("select extract(year from current_date)::integer - 10") ?? ""))
            let email = TestEnvironment.email("keyedchild"), parent = TestEnvironment.email("keyedparent")
            let signUp = try client.send(
                "POST", "/auth/register",
                json: #"{"email":"\#(email)","password":"\#(password)","display_name":"Kid","birth_year":\#(year),"birth_month":1}"#)
            let child = try #require(signUp.json["token"] as? String)
            let childID = try #require((signUp.json["user"] as? [String: Any])?["id"] as? String)
            if scenario == "parental-consent" {
                return request(
                    "POST", "/me/parental-consent", #"{"parent_email":"\#(parent)"}"#,
                    other: ("POST", "/me/parental-consent", #"{"parent_email":"other-\#(parent)"}"#), token: child,
                    marks: [childID, parent])
            }
            _ = try client.send("POST", "/me/parental-consent", token: child, json: #"{"parent_email":"\#(parent)"}"#)
            let code = try #require(
                try TestEnvironment.scalar(
                    "select params ->> 'code' from app.outgoing_mail where recipient = $1 and kind = 'parental_consent'", [parent]))
            return request(
                "POST", "/parental-consent", #"{"code":"\#(code)"}"#, other: ("POST", "/parental-consent", #"{"code":"0"}"#),
                token: nil, marks: [childID, parent])
        default:
            throw HTTPClientError(description: "no scenario \(scenario)")
        }
    }

    @Test(arguments: Transport.allCases, scenarios)
    func aReplayAnswersTheSameAndDoesNothingTwice(transport: Transport, scenario: String) throws {
        let client = transport.client
        let keyed = try Self.prepare(scenario, client)
        let declared = try #require(Self.scenarioRoutes[scenario])
        let route = try #require(Routes.all.first { "\($0.method) \($0.template)" == declared })
        let segments = keyed.path.split(separator: "?")[0].split(separator: "/")
        #expect(keyed.method == route.method && route.parameters(for: segments) != nil, "\(scenario) sends \(keyed.path)")
        let key = ["Idempotency-Key": "key-\(UUID().uuidString)"]
        let first = try client.send(keyed.method, keyed.path, token: keyed.token, json: keyed.json, headers: key)
        #expect(first.status < 500 && first.code != "idempotency_key_reused", "\(scenario): \(first.status) \(first.text)")
        let after = try Self.fingerprint(keyed.marks)

        let replay = try client.send(keyed.method, keyed.path, token: keyed.token, json: keyed.json, headers: key)
        #expect(replay.status == first.status, "\(scenario)")
        #expect(replay.text == first.text, "\(scenario)")
        for header in ["etag", "retry-after", "content-type"] {
            #expect(replay.header(header) == first.header(header), "\(scenario): \(header)")
        }
        #expect(try Self.fingerprint(keyed.marks) == after, "\(scenario): the replay changed nothing")

        let other = try client.send(
            keyed.other.method, keyed.other.path, token: keyed.token, json: keyed.other.json, headers: key)
        #expect(other.status == 422 && other.code == "idempotency_key_reused", "\(scenario): \(other.status) \(other.text)")
        #expect(try Self.fingerprint(keyed.marks) == after, "\(scenario): the refused request changed nothing")
    }

    @Test(arguments: Transport.allCases)
    func racingRequestsWithOneKeyExecuteOnce(transport: Transport) throws {
        let client = transport.client
        let keyed = try Self.prepare("purchase", client)
        let key = ["Idempotency-Key": "race-\(UUID().uuidString)"]
        let results = try concurrently(8) { _ in
            try client.send(keyed.method, keyed.path, token: keyed.token, json: keyed.json, headers: key)
        }
        #expect(Set(results.map(\.status)) == [201])
        #expect(Set(results.map(\.text)).count == 1, "every racer got the first answer")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.coin_ledger where user_id = $1 and entry = 'spend'", [keyed.marks[0]]) == "1")
    }

    @Test(arguments: Transport.allCases)
    func aRetriedRegisterNeedsTheKeyToGetItsToken(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("retry")
        let body = #"{"email":"\#(email)","password":"\#(Self.password)","display_name":"Retry"}"#
        let key = ["Idempotency-Key": UUID().uuidString]
        let first = try client.send("POST", "/auth/register", json: body, headers: key)
        #expect(first.status == 201)
        #expect(try client.send("POST", "/auth/register", json: body).code == "email_taken")
        let replay = try client.send("POST", "/auth/register", json: body, headers: key)
        #expect(replay.status == 201 && replay.json["token"] as? String == first.json["token"] as? String)
        #expect(try client.send("GET", "/me", token: replay.json["token"] as? String).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func aMalformedKeyIsInvalidFieldAndChangesNothing(transport: Transport) throws {
        let client = transport.client
        let me = try client.register("malformed")
        let before = try Self.fingerprint([me.id])
        // An empty header too: a key present runs under api.idempotent, which refuses it, never
        // the endpoint alone (a request without the header does).
        for key in [String(repeating: "k", count: 256), "caf\u{e9}", ""] {
            let answer = try client.send(
                "POST", "/focus-sessions/start", token: me.token, json: #"{"planned_minutes":25}"#,
                headers: ["Idempotency-Key": key])
            #expect(answer.status == 400 && answer.code == "invalid_field" && answer.json["field"] as? String == "Idempotency-Key")
        }
        #expect(try Self.fingerprint([me.id]) == before)
    }
}

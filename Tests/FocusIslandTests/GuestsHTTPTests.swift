// Guests and the age gate end to end (docs/guests.md, 2026-12-07): a guest made on a phone's
// first minute runs sessions (offline ones back to its creation), buys, and upgrades by email
// keeping balance, items, sessions and streak; what waits for an upgrade; the upgrade's
// refusals (the body's form, a taken email as sign-up answers it, an expired token, a double
// submit); an account under the age gate cannot ask friends by email nor is on the global
// board until a parent's mailed code is given back. A guest is made from a fresh address of
// its own (AddressedClient), or over the socket after the loopback's count is cleared, so the
// bound of 20 guests an hour per address never meets another test's.
import Foundation
import Testing

@Suite struct GuestsHTTPTests {
    /// A guest over `client`; over a socket the loopback's guests are forgotten first (only this
    /// suite makes guests there).
    static func guest(_ client: Client, _ body: String = "{}") throws -> (account: Account, reply: HTTPResult) {
        try TestEnvironment.owner().execute("delete from app.guest_creations where client_ip in ('127.0.0.1', '::1')")
        let reply = try client.send("POST", "/auth/guest", json: body)
        let id = try #require(reply.json["user"] as? [String: Any])["id"] as? String
        let token = reply.json["token"] as? String
        return (Account(id: id ?? "", email: "", token: token ?? ""), reply)
    }

    /// The account as made `days` days ago (app.users.created_at): a phone that ran offline since.
    static func madeDaysAgo(_ account: Account, _ days: Int) throws {
        try TestEnvironment.owner().execute(
            "update app.users set created_at = now() - make_interval(days => $2::integer) where id = $1", [account.id, String(days)])
    }

    /// A phone's record of a 90-minute session from 10:00 UTC `daysAgo` days before the database's today.
    static func offlineSession(_ daysAgo: Int) throws -> String {
        let times = try #require(
            try TestEnvironment.scalar(
                """
                select api.iso(d) || ' ' || api.iso(d + interval '90 minutes')
                from (select date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'
                             - make_interval(days => $1::integer) + interval '10 hours' as d) t
                """, [String(daysAgo)]))
        let parts = times.split(separator: " ")
        return #"{"id":"\#(UUID().uuidString)","started_at":"\#(parts[0])","ended_at":"\#(parts[1])"}"#
    }

    /// A phone's record of a 60-minute session ending at the database's now: today's, at any hour.
    static func sessionEndingNow() throws -> String {
        let times = try #require(try TestEnvironment.scalar("select api.iso(now() - interval '60 minutes') || ' ' || api.iso(now())"))
        let parts = times.split(separator: " ")
        return #"{"id":"\#(UUID().uuidString)","started_at":"\#(parts[0])","ended_at":"\#(parts[1])"}"#
    }

    /// What an upgrade must keep: the balance, the items, the sessions, the streak.
    static func holdings(_ client: Client, _ account: Account) throws -> [String] {
        let me = try client.send("GET", "/me", token: account.token)
        let items = try client.send("GET", "/me/items", token: account.token)
        let sessions = try client.send("GET", "/focus-sessions", token: account.token)
        let stats = try client.send("GET", "/me/stats", token: account.token)
        return [
            "\(me.json["balance"] as? Int ?? -1)", "\(me.json["id"] as? String ?? "")",
            (((items.json["items"] as? [[String: Any]]) ?? []).compactMap { ($0["item"] as? [String: Any])?["id"] as? String }).sorted()
                .joined(separator: ","),
            (((sessions.json["sessions"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }).sorted().joined(separator: ","),
            "\(stats.json["current_streak_days"] as? Int ?? -1)", "\(stats.json["longest_streak_days"] as? Int ?? -1)",
        ]
    }

    @Test(arguments: Transport.allCases)
    func aGuestFocusesBuysAndUpgradesKeepingEverything(transport: Transport) throws {
        let client = transport.client
        let (guest, made) = try Self.guest(client, #"{"display_name":"Newcomer","birth_year":1999,"birth_month":6}"#)
        #expect(made.status == 201, "\(made.text)")
        let user = try #require(made.json["user"] as? [String: Any])
        #expect(user["guest"] as? Bool == true && user["email"] is NSNull && user["age_restricted"] as? Bool == false)
        #expect(made.json["expires_at"] is String)
        try TestEnvironment.holdEveryAchievement(guest.id)  // its coins are this test's own
        try Self.madeDaysAgo(guest, 10)

        // Offline sessions back to its creation (9 days: past the 7 days of an older account).
        for daysAgo in [9, 2, 1] {
            let recorded = try client.send("POST", "/focus-sessions", token: guest.token, json: try Self.offlineSession(daysAgo))
            #expect(recorded.status == 201, "\(daysAgo) days ago: \(recorded.text)")
        }
        #expect(try client.send("GET", "/me", token: guest.token).json["balance"] as? Int == 270)
        let shop = try client.send("GET", "/shop/items")
        #expect(shop.status == 200)
        let mochi = try #require(
            try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Mochi the Cat'"))
        let bought = try client.send("POST", "/shop/purchases", token: guest.token, json: #"{"item_id":"\#(mochi)"}"#)
        #expect(bought.status == 201, "\(bought.text)")
        let before = try Self.holdings(client, guest)
        #expect(before[0] == "150" && before[2].contains(mochi) && before[3].split(separator: ",").count == 3, "\(before)")

        // What waits for an upgrade.
        for (method, path, body) in [
            ("POST", "/friend-requests", #"{"email":"someone@example.com"}"#),
            ("POST", "/rooms", #"{"planned_minutes":25}"#),
            ("POST", "/gifts", #"{"to":"\#(guest.id)","coins":1}"#),
            ("GET", "/leaderboards/daily?scope=global", nil),
        ] as [(String, String, String?)] {
            let refused = try client.send(method, path, token: guest.token, json: body)
            #expect(refused.status == 403 && refused.code == "guest_not_allowed", "\(path): \(refused.text)")
        }

        let email = TestEnvironment.email("upgraded")
        let upgraded = try client.send(
            "POST", "/me/upgrade", token: guest.token, json: #"{"email":"\#(email)","password":"correct horse","display_name":"Upgraded"}"#)
        #expect(upgraded.status == 200, "\(upgraded.text)")
        let profile = try #require(upgraded.json["user"] as? [String: Any])
        #expect(profile["id"] as? String == guest.id && profile["email"] as? String == email && profile["guest"] as? Bool == false)
        #expect(try Self.holdings(client, guest) == before, "balance, items, sessions and streak kept")
        let again = try client.send("POST", "/me/upgrade", token: guest.token, json: #"{"email":"\#(email)","password":"correct horse"}"#)
        #expect(again.status == 200 && (again.json["user"] as? [String: Any])?["id"] as? String == guest.id, "a double submit: the same")
        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(email)","password":"correct horse"}"#)
        #expect(login.status == 200 && (login.json["user"] as? [String: Any])?["id"] as? String == guest.id, "signs in by email now")
        #expect(try client.send("GET", "/leaderboards/daily?scope=global", token: guest.token).status == 200)
    }

    @Test(arguments: Transport.allCases)
    func upgradeRefusalsChangeNothing(transport: Transport) throws {
        let client = transport.client
        let taken = try client.register("takenbyother")
        let (guest, _) = try Self.guest(client)
        let state = { try TestEnvironment.scalar("select md5(u::text) from app.users u where id = $1", [guest.id]) }
        let before = try state()
        for (body, status, code) in [
            (#"{"email":"x@example.com","password":"#, 400, "invalid_json"),
            (#"{"email":"x@example.com","password":12345678}"#, 400, "invalid_field"),
            (#"{"email":"not-an-email","password":"correct horse"}"#, 400, "invalid_email"),
            (#"{"email":"x@example.com","password":"short"}"#, 400, "weak_password"),
            (#"{"email":"x@example.com","password":"correct horse","birth_year":2000}"#, 400, "invalid_field"),
            (#"{"email":"x@example.com","password":"correct horse","birth_year":"2000","birth_month":1}"#, 400, "invalid_field"),
            (#"{"email":"\#(taken.email.uppercased())","password":"correct horse"}"#, 409, "email_taken"),
            (#"{"email":"x@example.com","password":"correct horse","email":"y@example.com"}"#, 400, "duplicate_key"),
        ] as [(String, Int, String)] {
            let refused = try client.send("POST", "/me/upgrade", token: guest.token, json: body)
            #expect(refused.status == status && refused.code == code, "\(body): \(refused.text)")
        }
        #expect(try state() == before, "a refused upgrade changes nothing")
        let full = try client.send(
            "POST", "/me/upgrade", token: taken.token, json: #"{"email":"\#(taken.email)x","password":"correct horse"}"#)
        #expect(full.status == 409 && full.code == "already_upgraded")
        #expect(try client.send("POST", "/me/upgrade", json: #"{"email":"x@example.com","password":"correct horse"}"#).status == 401)
        try TestEnvironment.owner().execute(
            "update app.auth_tokens set created_at = now() - interval '31 days', expires_at = now() - interval '1 day' where user_id = $1",
            [guest.id])
        let expired = try client.send(
            "POST", "/me/upgrade", token: guest.token, json: #"{"email":"x@example.com","password":"correct horse"}"#)
        #expect(expired.status == 401 && expired.code == "unauthorized")
    }

    @Test func twoUpgradesRacingForOneEmailGetOneEach() throws {
        let first = AddressedClient.fresh()
        let guests = try (0..<2).map { _ in
            try #require(try first.send("POST", "/auth/guest", json: "{}").json["token"] as? String)
        }
        let email = TestEnvironment.email("raced")
        let results = try concurrently(2) { index in
            try first.send("POST", "/me/upgrade", token: guests[index], json: #"{"email":"\#(email)","password":"correct horse"}"#)
        }
        #expect(results.map(\.status).sorted() == [200, 409], "\(results.map(\.text))")
        #expect(results.contains { $0.code == "email_taken" })
    }

    @Test func guestsAreBoundedPerAddress() throws {
        let client = AddressedClient.fresh()
        let limit = try #require(Int(try TestEnvironment.scalar("select max_guests_per_address::text from app.guest_settings") ?? ""))
        for _ in 0..<limit {
            #expect(try client.send("POST", "/auth/guest").status == 201)
        }
        let refused = try client.send("POST", "/auth/guest", json: "{}")
        #expect(refused.status == 429 && refused.code == "too_many_attempts" && refused.header("Retry-After") != nil, "\(refused.text)")
        #expect(try AddressedClient.fresh().send("POST", "/auth/guest").status == 201, "another address is not held")
        let malformed = try AddressedClient.fresh().send("POST", "/auth/guest", json: #"{"display_name":"#)
        #expect(malformed.status == 400 && malformed.code == "invalid_json")
        let wrongType = try AddressedClient.fresh().send("POST", "/auth/guest", json: #"{"birth_year":"x","birth_month":1}"#)
        #expect(wrongType.status == 400 && wrongType.code == "invalid_field")
    }

    @Test(arguments: Transport.allCases)
    func aChildAsksFriendsAndIsOnTheBoardOnlyAfterAParentConsents(transport: Transport) throws {
        let client = transport.client
        let adult = try client.register("boardadult")
        let email = TestEnvironment.email("child")
        let year = try #require(Int(try TestEnvironment.scalar("select extract(year from current_date)::integer - 10") ?? ""))
        let signUp = try client.send(
            "POST", "/auth/register",
            json: #"{"email":"\#(email)","password":"correct horse","display_name":"Child","birth_year":\#(year),"birth_month":3}"#)
        #expect(signUp.status == 201 && (signUp.json["user"] as? [String: Any])?["age_restricted"] as? Bool == true, "\(signUp.text)")
        let child = try #require(signUp.json["token"] as? String)
        let childID = try #require((signUp.json["user"] as? [String: Any])?["id"] as? String)
        try TestEnvironment.owner().execute(
            "update app.users set email_verified_at = now(), created_at = now() - interval '1 year' where id = $1", [childID])
        try TestEnvironment.holdEveryAchievement(childID)
        let session = try client.send("POST", "/focus-sessions", token: child, json: try Self.sessionEndingNow())
        #expect(session.status == 201, "\(session.text)")

        let asked = try client.send("POST", "/friend-requests", token: child, json: #"{"email":"\#(adult.email)"}"#)
        #expect(asked.status == 403 && asked.code == "parental_consent_required", "\(asked.text)")
        let found = try client.send("POST", "/friend-requests", token: adult.token, json: #"{"email":"\#(email)"}"#)
        #expect(found.status == 404 && found.code == "user_not_found", "nobody finds a child by email")
        // The global board's rows as the route reads them (api.board_top), however many others
        // focused today: a top of 100 over HTTP could leave the child out for its minutes alone.
        func onBoard() throws -> Bool {
            #expect(try client.send("GET", "/leaderboards/daily?scope=global", token: adult.token).status == 200)
            return try TestEnvironment.scalar(
                "select exists (select from api.board_top('daily', (now() at time zone 'UTC')::date, 1000000, $1::uuid) where user_id = $2::uuid)::text",
                [adult.id, childID]) == "true"
        }
        #expect(try !onBoard(), "not on the global board")

        let notNeeded = try client.send("POST", "/me/parental-consent", token: adult.token, json: #"{"parent_email":"p@example.com"}"#)
        #expect(notNeeded.status == 409 && notNeeded.code == "parental_consent_not_needed")
        let parent = TestEnvironment.email("parent")
        let mailed = try client.send("POST", "/me/parental-consent", token: child, json: #"{"parent_email":"\#(parent)"}"#)
        #expect(mailed.status == 202 && mailed.json["consent"] as? String == "mailed", "\(mailed.text)")
        let code = try #require(
            try TestEnvironment.scalar(
                "select params ->> 'code' from app.outgoing_mail where recipient = $1 and kind = 'parental_consent' order by id desc limit 1",
                [parent]))
        let wrong = try client.send("POST", "/parental-consent", json: #"{"code":"0000-0000-0000-0000-0000"}"#)
        #expect(wrong.status == 400 && wrong.code == "invalid_consent_code")
        let malformed = try client.send("POST", "/parental-consent", json: #"{"code":7}"#)
        #expect(malformed.status == 400 && malformed.code == "invalid_field")
        let consent = try client.send("POST", "/parental-consent", json: #"{"code":"\#(code)"}"#)
        #expect(consent.status == 200 && consent.json["consent"] as? String == "recorded", "\(consent.text)")
        let twice = try client.send("POST", "/parental-consent", json: #"{"code":"\#(code)"}"#)
        #expect(
            twice.status == 200 && twice.json["recorded_at"] as? String == consent.json["recorded_at"] as? String,
            "a double submit: the same")

        #expect(try client.send("GET", "/me", token: child).json["age_restricted"] as? Bool == false)
        let now = try client.send("POST", "/friend-requests", token: child, json: #"{"email":"\#(adult.email)"}"#)
        #expect(now.status == 201, "after consent: \(now.text)")
        #expect(try onBoard(), "and on the global board")
    }
}

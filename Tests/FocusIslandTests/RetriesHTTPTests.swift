// Retry-safety without a key, offline batches, the running session, abandon, the original
// app's tips body and the assets, end to end through both transports.
import Foundation
import Testing

/// The id a start answered, flat (`{id}`) or wrapped (`{session: {id}}`).
func startedID(_ started: HTTPResult) -> String {
    started.json["id"] as? String ?? (started.json["session"] as? [String: Any])?["id"] as? String ?? ""
}

@Suite struct RetriesHTTPTests {
    func offline(_ id: String, endingAt end: Date, minutes: Double, extra: String = "") -> String {
        #"{"id":"\#(id)","started_at":"\#((end - minutes * 60).rfc3339)","ended_at":"\#(end.rfc3339)"\#(extra)}"#
    }

    func count(_ sql: String, _ parameters: [String?]) throws -> String? { try TestEnvironment.scalar(sql, parameters) }

    @Test(arguments: Transport.allCases)
    func aBatchMixesValidOverlappingFutureAndReplayedSessions(transport: Transport) throws {
        let client = transport.client
        let me = try client.register("batch")
        let now = try TestEnvironment.databaseNow()
        let a = UUID().uuidString, b = UUID().uuidString
        let body = """
            {"sessions":[\(offline(a, endingAt: now - 7200, minutes: 30, extra: #","planned_minutes":30,"rating":"good""#)),
            \(offline(b, endingAt: now - 3600, minutes: 30)),
            \(offline(UUID().uuidString, endingAt: now - 3000, minutes: 20)),
            \(offline(UUID().uuidString, endingAt: now + 3600, minutes: 20)),
            \(offline(a, endingAt: now - 7200, minutes: 30, extra: #","rating":"good""#))]}
            """
        let first = try client.send("POST", "/focus-sessions/batch", token: me.token, json: body)
        #expect(first.status == 200)
        let results = first.json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? Int } == [201, 201, 409, 422, 200])
        #expect(
            results.compactMap { ($0["problem"] as? [String: Any])?["code"] as? String } == [
                "session_overlap", "invalid_session",
            ])
        let tip = { (result: [String: Any]) in ((result["body"] as? [String: Any])?["tip"] as? [String: Any])?["id"] as? String }
        #expect(tip(results[0]) != nil && tip(results[0]) == tip(results[4]))
        let earned = try count("select count(*) || '/' || sum(amount) from app.coin_ledger where user_id = $1 and entry = 'earn'", [me.id])
        #expect(try count("select count(*) from app.focus_sessions where user_id = $1", [me.id]) == "2")

        // The whole batch again (the phone never saw the answer): nothing twice.
        let again = try client.send("POST", "/focus-sessions/batch", token: me.token, json: body)
        let repeated = again.json["results"] as? [[String: Any]] ?? []
        #expect(repeated.map { $0["status"] as? Int } == [200, 200, 409, 422, 200])
        // Each item's body as the first batch answered it: balance after that item, first_session
        // on the first one (and on its repeat within the batch), the same tip.
        let bodies = { (items: [[String: Any]]) in items.map { ($0["body"] ?? $0["problem"]) as? NSDictionary } }
        #expect(bodies(repeated) == bodies(results))
        #expect(
            ((results[0]["body"] as? [String: Any])?["achievements_unlocked"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
                == ["first_session"])
        #expect(
            try count("select count(*) || '/' || sum(amount) from app.coin_ledger where user_id = $1 and entry = 'earn'", [me.id]) == earned
        )
        #expect(try count("select count(*) from app.tip_views where user_id = $1", [me.id]) == "1")

        for bad in [#"{"sessions":[]}"#, #"{"sessions":{}}"#, #"{"session":[]}"#] {
            let refused = try client.send("POST", "/focus-sessions/batch", token: me.token, json: bad)
            #expect(refused.status == 400 && refused.code == "invalid_field")
        }
        #expect(try client.send("POST", "/focus-sessions/batch", json: body).status == 401)
        #expect(try count("select count(*) from app.focus_sessions where user_id = $1", [me.id]) == "2")
    }

    @Test(arguments: Transport.allCases)
    func theRunningSessionAndAbandon(transport: Transport) throws {
        let client = transport.client
        let me = try client.register("current")
        #expect(try client.send("GET", "/focus-sessions/current", token: me.token).status == 204)
        let started = try client.send("POST", "/focus-sessions/start", token: me.token, json: #"{"planned_minutes":25}"#)
        let id = startedID(started)
        let current = try client.send("GET", "/focus-sessions/current", token: me.token)
        let session = current.json["session"] as? [String: Any] ?? [:]
        #expect(current.status == 200 && session["id"] as? String == id && session["planned_minutes"] as? Int == 25)
        #expect(current.json["now"] is String && session["ends_at"] is String)

        let abandoned = try client.send("POST", "/focus-sessions/\(id)/abandon", token: me.token)
        let ended = abandoned.json["session"] as? [String: Any] ?? [:]
        #expect(abandoned.status == 200 && ended["abandoned"] as? Bool == true && ended["coins_earned"] as? Int == 0)
        #expect(try client.send("POST", "/focus-sessions/\(id)/abandon", token: me.token).text == abandoned.text)
        #expect(try client.send("GET", "/focus-sessions/current", token: me.token).status == 204)
        #expect(try count("select count(*) from app.coin_ledger where user_id = $1 and entry = 'earn'", [me.id]) == "0")

        let unknown = try client.send("POST", "/focus-sessions/\(UUID().uuidString)/abandon", token: me.token)
        #expect(unknown.status == 404 && unknown.code == "session_not_found")
        let recorded = UUID().uuidString
        _ = try client.send(
            "POST", "/focus-sessions", token: me.token,
            json: offline(recorded, endingAt: try TestEnvironment.databaseNow() - 7200, minutes: 30))
        let finished = try client.send("POST", "/focus-sessions/\(recorded)/abandon", token: me.token)
        #expect(finished.status == 409 && finished.code == "session_finished")
        #expect(try client.send("GET", "/focus-sessions/current").status == 401)
    }

    @Test(arguments: Transport.allCases)
    func retriesWithoutAKeyAreSafe(transport: Transport) throws {
        let client = transport.client
        let me = try client.register("retry"), them = try client.register("them")
        // A session uploaded again without its optional planned_minutes is the same session.
        let id = UUID().uuidString
        let end = try TestEnvironment.databaseNow() - 3600
        #expect(
            try client.send(
                "POST", "/focus-sessions", token: me.token,
                json: offline(id, endingAt: end, minutes: 30, extra: #","planned_minutes":30"#)
            ).status == 201)
        #expect(try client.send("POST", "/focus-sessions", token: me.token, json: offline(id, endingAt: end, minutes: 30)).status == 200)
        // Rating again with the same rating: the same tip, no other tip marked seen.
        let rated = try client.send("POST", "/focus-sessions/\(id)/rating", token: me.token, json: #"{"rating":"fine"}"#)
        let again = try client.send("POST", "/focus-sessions/\(id)/rating", token: me.token, json: #"{"rating":"fine"}"#)
        #expect(rated.status == 200 && again.text == rated.text)
        #expect(try count("select count(*) from app.tip_views where user_id = $1", [me.id]) == "1")
        // Asking again: 200 with the pending request; accepting again: 200 with the friend.
        let asked = try client.send("POST", "/friend-requests", token: me.token, json: #"{"email":"\#(them.email)"}"#)
        let askedAgain = try client.send("POST", "/friend-requests", token: me.token, json: #"{"email":"\#(them.email)"}"#)
        #expect(asked.status == 201 && askedAgain.status == 200 && askedAgain.text == asked.text)
        let request = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        let accepted = try client.send("POST", "/friend-requests/\(request)/accept", token: them.token)
        let acceptedAgain = try client.send("POST", "/friend-requests/\(request)/accept", token: them.token)
        // The first answer again, byte for byte, the achievements it unlocked (first_friend) included
        // (docs/achievements.md, 2026-12-06).
        #expect(accepted.status == 200 && acceptedAgain.status == 200)
        #expect(acceptedAgain.text == accepted.text)
        #expect(
            (accepted.json["achievements_unlocked"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["first_friend"])
        #expect(try client.send("POST", "/friend-requests/\(request)/accept", token: me.token).code == "friend_request_not_found")
        #expect(
            try count(
                "select string_agg(action, ',' order by id) from app.friendship_events where $1::uuid in (user_low, user_high)",
                [me.id]) == "asked,accepted")
    }

    @Test(arguments: Transport.allCases)
    func theOriginalAppsTipsBodyGetsTheOriginalAnswer(transport: Transport) throws {
        let client = transport.client
        for name in ["itemIds", "ItemIds", "itemids"] {
            let answer = try client.send("POST", "/Sync/MindfulnessTips", json: #"{"\#(name)":[]}"#)
            let items = answer.json["missingItems"] as? [[String: Any]] ?? []
            #expect(answer.status == 200 && !items.isEmpty && answer.json["missing"] == nil)
            #expect(Set(items.compactMap { $0["sessionRatingLevel"] as? String }) == ["Good", "Fine", "Bad"])
            #expect(Set(items.first?.keys.map { $0 } ?? []) == ["id", "title", "content", "sessionRatingLevel"])
        }
        let ours = try client.send("POST", "/Sync/MindfulnessTips", json: #"{"known_ids":[]}"#)
        #expect(ours.json["missing"] is [Any] && ours.json["removed"] is [Any] && ours.json["missingItems"] == nil)
        let bad = try client.send("POST", "/Sync/MindfulnessTips", json: #"{"itemIds":["nope"]}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }

    @Test(arguments: Transport.allCases)
    func assetsAreServedUnderHashedNamesWithCacheHeaders(transport: Transport) throws {
        let client = transport.client
        let catalog = try client.send("GET", "/shop/items")
        let pets = catalog.json["pets"] as? [[String: Any]] ?? []
        let sounds = catalog.json["sounds"] as? [[String: Any]] ?? []
        guard let imageURL = pets.first?["image_url"] as? String, let soundURL = sounds.first?["sound_url"] as? String,
            let path = imageURL.range(of: "/assets/").map({ String(imageURL[$0.lowerBound...]) })
        else {
            Issue.record("no image_url in \(catalog.text)")
            return
        }
        #expect(
            imageURL.hasPrefix("http://")
                && path.range(of: #"^/assets/pet/[a-z0-9-]+\.[0-9a-f]{16}\.png$"#, options: .regularExpression) != nil)
        let image = try client.send("GET", path)
        #expect(image.status == 200 && image.header("content-type") == "image/png")
        #expect(image.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(image.body.starts(with: [0x89, 0x50, 0x4e, 0x47]))
        let sound = try client.send("GET", String(soundURL[soundURL.range(of: "/assets/")!.lowerBound...]))
        #expect(sound.status == 200 && sound.header("cache-control") == "public, max-age=31536000, immutable")

        for outside in [
            "/assets/pet/sprout.png", "/assets/../sql/bootstrap.sql", "/assets/..%2Fsql%2Fbootstrap.sql",
            "/assets/pet%2F..%2F..%2FPackage.swift", "/assets//etc/passwd", "/assets/%2Fetc%2Fpasswd", "/assets/README.md",
        ] {
            let answer = try client.send("GET", outside)
            #expect(answer.status == 404 && answer.code == "not_found", "\(outside)")
            #expect(answer.header("content-type") == "application/problem+json")
        }
        #expect(try client.send("POST", path, json: "{}").status == 405)
    }
}

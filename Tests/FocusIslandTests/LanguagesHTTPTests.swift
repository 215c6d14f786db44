// Languages and validators end to end: Accept-Language picks the language of items and tips
// (Spanish for es and es-MX, English for fr, a malformed header or none), Content-Language and
// Vary on the answers that depend on it, the catalog's ETag per language, settings.locale, and
// ETags with 304 on /me, /me/stats, /me/items, the leaderboards and the friends list.
// Each case runs in-process through the pipeline and over a real socket (Transport.swift).
import Foundation
import Testing

@Suite struct LanguagesHTTPTests {
    func names(_ result: HTTPResult, _ kind: String) -> [String] {
        (result.json[kind] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test(arguments: Transport.allCases)
    func spanishForEsAndEnglishForFr(transport: Transport) throws {
        let client = transport.client
        let spanish = try client.send("GET", "/shop/items", headers: ["Accept-Language": "es"])
        #expect(spanish.status == 200)
        #expect(names(spanish, "pets").contains("Pip el zorro"))
        #expect(spanish.header("Content-Language") == "es")
        #expect(spanish.header("Vary") == "Accept-Language")
        let french = try client.send("GET", "/shop/items", headers: ["Accept-Language": "fr"])
        #expect(names(french, "pets").contains("Pip the Fox"))
        #expect(french.header("Content-Language") == "en")
        let mexican = try client.send("GET", "/shop/items", headers: ["Accept-Language": "fr-CA, es-MX;q=0.8, en;q=0.5"])
        #expect(mexican.header("Content-Language") == "es" && names(mexican, "pets").contains("Pip el zorro"))
        let none = try client.send("GET", "/shop/items")
        #expect(none.header("Content-Language") == "en" && names(none, "pets").contains("Pip the Fox"))

        // The catalog's ETag per language: ShopHTTPTests.theCatalogHasAnETagPerLanguage (its
        // suite adds items, which move the version, one test at a time).

        // Tips: sync in both shapes, in Spanish and in English.
        let tips = try client.send("POST", "/sync/mindfulness-tips", json: #"{"known_ids":[]}"#, headers: ["Accept-Language": "es"])
        let titles = (tips.json["missing"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        #expect(titles.contains("Respiración cuadrada") && !titles.contains("Box breathing"))
        #expect(tips.header("Content-Language") == "es")
        let original = try client.send("POST", "/Sync/MindfulnessTips", json: #"{"itemIds":[]}"#, headers: ["Accept-Language": "fr"])
        let originalTitles = (original.json["missingItems"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        #expect(originalTitles.contains("Box breathing") && original.header("Content-Language") == "en")
    }

    @Test(arguments: Transport.allCases)
    func aRatingsTipAndTheProfileFollowTheRequestsLanguage(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("idioma")
        let id = UUID().uuidString
        let start = try TestEnvironment.databaseNow() - 3600
        let end = start + 30 * 60
        let session = #"{"id":"\#(id)","started_at":"\#(start.rfc3339)","ended_at":"\#(end.rfc3339)"}"#
        #expect(try client.send("POST", "/focus-sessions", token: account.token, json: session).status == 201)
        let rated = try client.send(
            "POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"bad"}"#,
            headers: ["Accept-Language": "es-ES"])
        #expect(rated.status == 200 && rated.header("Content-Language") == "es")
        let tip = try #require(rated.json["tip"] as? [String: Any])
        let tipID = try #require(tip["id"] as? String)
        #expect(
            try TestEnvironment.scalar(
                "select title from app.mindfulness_tip_translations where tip_id = $1 and language = 'es'", [tipID])
                == tip["title"] as? String)
        // The same rating again (a retry) in French: the same tip, in English.
        let retried = try client.send(
            "POST", "/focus-sessions/\(id)/rating", token: account.token, json: #"{"rating":"bad"}"#,
            headers: ["Accept-Language": "fr"])
        let english = try #require(retried.json["tip"] as? [String: Any])
        #expect(english["id"] as? String == tipID && retried.header("Content-Language") == "en")
        #expect(
            try TestEnvironment.scalar("select title from app.mindfulness_tips where id = $1", [tipID])
                == english["title"] as? String)

        let me = try client.send("GET", "/me", token: account.token, headers: ["Accept-Language": "es"])
        let selected = try #require(me.json["selected"] as? [String: Any])
        #expect((selected["pet"] as? [String: Any])?["name"] as? String == "Brote")
        #expect(me.header("Content-Language") == "es" && me.header("Vary") == "Accept-Language")
        // An answer with no item or tip text says nothing about languages.
        let stats = try client.send("GET", "/me/stats", token: account.token, headers: ["Accept-Language": "es"])
        #expect(stats.header("Content-Language") == nil && stats.header("Vary") == nil)
        // A problem is not translated: no Content-Language, but it varies like its route.
        let unknown = try client.send(
            "POST", "/focus-sessions/\(UUID().uuidString)/rating", token: account.token, json: #"{"rating":"bad"}"#,
            headers: ["Accept-Language": "es"])
        #expect(unknown.status == 404 && unknown.header("Content-Language") == nil)
    }

    /// A malformed Accept-Language is no error: bad members are skipped, and a header with
    /// nothing usable is no header (English).
    @Test(arguments: Transport.allCases)
    func malformedAcceptLanguageIsSkippedNotRefused(transport: Transport) throws {
        let client = transport.client
        let cases: [(String, String)] = [
            ("es;q=2", "en"),  // a weight above 1: the member is skipped
            ("es;q=abc, fr", "en"),
            ("e$, es;q=0.5", "es"),  // the bad member skipped, the good one used
            ("es;q=0", "en"),  // q=0: not acceptable
            ("es-MX, es;q=0", "en"),  // es refused: es-MX does not fall back to it
            (",,;;", "en"),
            ("*", "en"),
            ("toolongsubtag-es", "en"),
            (String(repeating: "xx, ", count: 100) + "es", "en"),  // only the first 32 members are read
        ]
        for (header, language) in cases {
            let result = try client.send("GET", "/shop/items", headers: ["Accept-Language": header])
            #expect(result.status == 200, "\(header)")
            #expect(result.header("Content-Language") == language, "\(header)")
        }
        // A client's own ?language= is not the server's choice.
        let query = try client.send("GET", "/shop/items?language=es")
        #expect(query.header("Content-Language") == "en" && names(query, "pets").contains("Pip the Fox"))
    }

    /// The language is not part of an Idempotency-Key's request: a retry after the phone's
    /// language changed replays the first answer (in the first language), never a 422.
    @Test(arguments: Transport.allCases)
    func aReplayInAnotherLanguageAnswersTheFirstAnswer(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("replay-language")
        try TestEnvironment.owner().execute("select app.grant_coins($1, 500, 'test')", [account.id])
        let itemID = try #require(try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Bao the Panda'"))
        let body = #"{"item_id":"\#(itemID)"}"#
        let key = UUID().uuidString
        let first = try client.send(
            "POST", "/shop/purchases", token: account.token, json: body,
            headers: ["Idempotency-Key": key, "Accept-Language": "es"])
        #expect(first.status == 201 && (first.json["item"] as? [String: Any])?["name"] as? String == "Bao el panda")
        let replay = try client.send(
            "POST", "/shop/purchases", token: account.token, json: body,
            headers: ["Idempotency-Key": key, "Accept-Language": "en"])
        #expect(replay.status == 201 && replay.body == first.body)
        #expect(try TestEnvironment.scalar("select balance from app.users where id = $1", [account.id]) == "260")
    }

    @Test(arguments: Transport.allCases)
    func localeIsASettingForPushAndMail(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("locale")
        let me = try client.send("GET", "/me", token: account.token)
        #expect((me.json["settings"] as? [String: Any])?["locale"] as? String == "en")
        let set = try client.send("PATCH", "/me", token: account.token, json: #"{"settings":{"locale":"es-mx"}}"#)
        #expect(set.status == 200)
        #expect((set.json["settings"] as? [String: Any])?["locale"] as? String == "es-MX")
        #expect(try TestEnvironment.scalar("select app.language_for(locale) from app.users where id = $1", [account.id]) == "es")
        let refusals = [
            #"{"settings":{"locale":"es_MX"}}"#, #"{"settings":{"locale":42}}"#, #"{"settings":{"locale":""}}"#,
            #"{"settings":{"locale":"en-US-x-\#(String(repeating: "a", count: 40))"}}"#,
        ]
        for body in refusals {
            let refused = try client.send("PATCH", "/me", token: account.token, json: body)
            #expect(refused.status == 400 && refused.code == "invalid_field", "\(body)")
        }
        let malformed = try client.send("PATCH", "/me", token: account.token, json: #"{"settings":{"locale":"es""#)
        #expect(malformed.status == 400 && malformed.code == "invalid_json")
        #expect(try TestEnvironment.scalar("select locale from app.users where id = $1", [account.id]) == "es-MX")
        let noToken = try client.send("PATCH", "/me", json: #"{"settings":{"locale":"es"}}"#)
        #expect(noToken.status == 401)
    }

    @Test(arguments: Transport.allCases)
    func meAnswers304UntilAPurchase(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("etag")
        try TestEnvironment.owner().execute("select app.grant_coins($1, 500, 'test')", [account.id])
        let first = try client.send("GET", "/me", token: account.token)
        let tag = try #require(first.header("ETag"))
        #expect(first.header("Cache-Control") == "private, no-cache")
        #expect(!tag.hasPrefix("W/"))  // strong: the digest of the answer's bytes
        let unchanged = try client.send("GET", "/me", token: account.token, headers: ["If-None-Match": tag])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("ETag") == tag)

        let itemID = try #require(
            try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Pip the Fox'"))
        let bought = try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(itemID)"}"#)
        #expect(bought.status == 201)
        let changed = try client.send("GET", "/me", token: account.token, headers: ["If-None-Match": tag])
        #expect(changed.status == 200 && changed.header("ETag") != tag)
        #expect(changed.json["balance"] as? Int == 500 - 180)

        // Another person's tag is another answer; a tag from another language too.
        let other = try client.register("etag-other")
        #expect(try client.send("GET", "/me", token: other.token, headers: ["If-None-Match": tag]).status == 200)
        let spanish = try client.send(
            "GET", "/me", token: account.token, headers: ["If-None-Match": changed.header("ETag") ?? "", "Accept-Language": "es"])
        #expect(spanish.status == 200 && spanish.header("ETag") != changed.header("ETag"))
        // Without a token: 401, whatever the tag.
        #expect(try client.send("GET", "/me", headers: ["If-None-Match": tag]).status == 401)
    }

    @Test(arguments: Transport.allCases)
    func statsItemsBoardsAndFriendsAnswerIfNoneMatch(transport: Transport) throws {
        let client = transport.client
        let paths = ["/me/stats", "/me/items", "/me/items?kind=pet", "/leaderboards/daily", "/leaderboards/weekly", "/friends"]
        // Stats and boards are about today and this week: read within one UTC day.
        let (account, statuses, itemsTag) = try TestEnvironment.withinOneUTCDay { _ in
            let account = try client.register("validators")
            var statuses: [String] = []
            var itemsTag = ""
            for path in paths {
                let first = try client.send("GET", path, token: account.token)
                let tag = first.header("ETag") ?? ""
                if path == "/me/items" { itemsTag = tag }
                let again = try client.send("GET", path, token: account.token, headers: ["If-None-Match": tag])
                let listed = try client.send("GET", path, token: account.token, headers: ["If-None-Match": #""x", \#(tag)"#])
                let stale = try client.send("GET", path, token: account.token, headers: ["If-None-Match": #""stale""#])
                statuses.append(
                    "\(path) \(first.status) \(tag.isEmpty ? "-" : "tag") \(again.status) \(again.body.count) \(listed.status) \(stale.status)"
                )
            }
            return (account, statuses, itemsTag)
        }
        // 200 with a tag; 304 with no body for the tag alone and among others; 200 for a stale one.
        #expect(statuses == paths.map { "\($0) 200 tag 304 0 304 200" })

        // A purchase changes the inventory's answer, so its tag.
        try TestEnvironment.owner().execute("select app.grant_coins($1, 500, 'test')", [account.id])
        let itemID = try #require(
            try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Mochi the Cat'"))
        #expect(try client.send("POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(itemID)"}"#).status == 201)
        let items = try client.send("GET", "/me/items", token: account.token, headers: ["If-None-Match": itemsTag])
        #expect(items.status == 200 && items.header("ETag") != itemsTag)
        // A bad parameter is still a problem, not a 304.
        let bad = try client.send("GET", "/me/items?kind=hat", token: account.token, headers: ["If-None-Match": "*"])
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }
}

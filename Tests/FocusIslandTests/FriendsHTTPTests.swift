// Friends, avatars and leaderboards end to end over HTTP, including the races.
import Foundation
import Testing

@Suite struct FriendsHTTPTests {
    func ask(_ client: HTTPClient, _ from: Account, _ email: String) throws -> HTTPResult {
        try client.send("POST", "/friend-requests", token: from.token, json: #"{"email":"\#(email)"}"#)
    }

    func friendIDs(_ client: HTTPClient, _ account: Account) throws -> [String] {
        let list = try client.send("GET", "/friends", token: account.token)
        return (list.json["friends"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
    }

    func pairState(_ a: Account, _ b: Account) throws -> String {
        try TestEnvironment.scalar("""
            select coalesce((select status from app.friendships
                             where user_low = least($1::uuid, $2::uuid) and user_high = greatest($1::uuid, $2::uuid)), 'none')
            """, [a.id, b.id]) ?? "?"
    }

    @Test func askAcceptListRemove() throws {
        let client = try TestServer.client()
        let a = try client.register("ann"), b = try client.register("ben")
        let asked = try ask(client, a, b.email.uppercased())
        #expect(asked.status == 201)
        let requestID = try #require((asked.json["request"] as? [String: Any])?["id"] as? String)

        let incoming = try client.send("GET", "/friend-requests", token: b.token)
        #expect((incoming.json["incoming"] as? [[String: Any]])?.first?["id"] as? String == requestID)
        #expect(((incoming.json["incoming"] as? [[String: Any]])?.first?["from"] as? [String: Any])?["id"] as? String == a.id)
        let outgoing = try client.send("GET", "/friend-requests", token: a.token)
        #expect((outgoing.json["outgoing"] as? [[String: Any]])?.first?["id"] as? String == requestID)

        let accepted = try client.send("POST", "/friend-requests/\(requestID)/accept", token: b.token)
        #expect(accepted.status == 200)
        #expect((accepted.json["friend"] as? [String: Any])?["id"] as? String == a.id)
        #expect(try friendIDs(client, a) == [b.id])
        #expect(try friendIDs(client, b) == [a.id])
        let island = try client.send("GET", "/users/\(b.id)", token: a.token)
        #expect(island.status == 200)
        #expect(((island.json["selected"] as? [String: Any])?["pet"] as? [String: Any])?["name"] as? String == "Sprout")

        #expect(try client.send("DELETE", "/friends/\(b.id)", token: a.token).status == 204)
        #expect(try friendIDs(client, a).isEmpty)
        #expect(try friendIDs(client, b).isEmpty)
        #expect(try client.send("GET", "/users/\(b.id)", token: a.token).status == 404)
        let again = try client.send("DELETE", "/friends/\(b.id)", token: a.token)
        #expect(again.status == 404 && again.code == "not_friends")
    }

    @Test func askingEachOtherAtOnceEndsAsOneFriendship() throws {
        let client = try TestServer.client()
        for _ in 0..<5 {
            let a = try client.register("mutual"), b = try client.register("mutual")
            let statuses = try concurrently(2) { index in
                try (index == 0 ? ask(client, a, b.email) : ask(client, b, a.email)).status
            }
            #expect(statuses.sorted() == [200, 201])
            #expect(try pairState(a, b) == "accepted")
            #expect(try friendIDs(client, a) == [b.id])
        }
    }

    @Test func acceptAndCancelRacingEndConsistently() throws {
        let client = try TestServer.client()
        var outcomes: [String] = []
        for _ in 0..<6 {
            let a = try client.register("racer"), b = try client.register("racer")
            let requestID = try #require((try ask(client, a, b.email).json["request"] as? [String: Any])?["id"] as? String)
            let statuses = try concurrently(2) { index in
                try (index == 0 ? client.send("POST", "/friend-requests/\(requestID)/accept", token: b.token)
                                : client.send("DELETE", "/friend-requests/\(requestID)", token: a.token)).status
            }
            let state = try pairState(a, b)
            // Exactly one wins: accepted (accept 200, cancel 404) or gone (cancel 204, accept 404).
            #expect((statuses == [200, 404] && state == "accepted") || (statuses == [404, 204] && state == "none"))
            outcomes.append("\(statuses) → \(state)")
        }
        print("accept vs cancel races: \(outcomes.joined(separator: "; "))")
    }

    @Test func aThirdUserCanNeitherSeeNorActOnARequest() throws {
        let client = try TestServer.client()
        let a = try client.register("ann"), b = try client.register("ben"), c = try client.register("cat")
        let requestID = try #require((try ask(client, a, b.email).json["request"] as? [String: Any])?["id"] as? String)
        let seen = try client.send("GET", "/friend-requests", token: c.token)
        #expect((seen.json["incoming"] as? [Any])?.isEmpty == true && (seen.json["outgoing"] as? [Any])?.isEmpty == true)
        for (method, path) in [("POST", "/friend-requests/\(requestID)/accept"), ("POST", "/friend-requests/\(requestID)/decline"),
                               ("DELETE", "/friend-requests/\(requestID)")] {
            let result = try client.send(method, path, token: c.token)
            #expect(result.status == 404 && result.code == "friend_request_not_found")
        }
        let unknown = try client.send("POST", "/friend-requests/\(UUID().uuidString)/accept", token: b.token)
        #expect(unknown.status == 404 && unknown.code == "friend_request_not_found")
        #expect(try pairState(a, b) == "pending")
        #expect(try client.send("GET", "/users/\(a.id)", token: c.token).status == 404)
    }

    @Test func refusedRequestsAnswerTheirCodes() throws {
        let client = try TestServer.client()
        let a = try client.register("ann"), b = try client.register("ben")
        #expect(try ask(client, a, a.email).code == "cannot_friend_self")
        #expect(try ask(client, a, TestEnvironment.email("ghost")).code == "user_not_found")
        #expect(try ask(client, a, b.email).status == 201)
        #expect(try ask(client, a, b.email).code == "request_pending")
        let bad = try client.send("POST", "/friend-requests", token: a.token, json: #"{"email":7}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }

    @Test func friendListsHaveETagsThatChangeExactlyWithTheList() throws {
        let client = try TestServer.client()
        let a = try client.register("etag"), b = try client.register("etag")
        let first = try client.send("GET", "/friends", token: a.token)
        let tag = try #require(first.header("ETag"))
        let unchanged = try client.send("GET", "/friends", token: a.token, headers: ["If-None-Match": tag])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)

        let requestsTag = try #require(try client.send("GET", "/friend-requests", token: b.token).header("ETag"))
        _ = try ask(client, a, b.email)
        let changedRequests = try client.send("GET", "/friend-requests", token: b.token, headers: ["If-None-Match": requestsTag])
        #expect(changedRequests.status == 200 && changedRequests.header("ETag") != requestsTag)
        _ = try ask(client, b, a.email)
        let changed = try client.send("GET", "/friends", token: a.token, headers: ["If-None-Match": tag])
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != tag)
    }

    @Test func avatarsAreForOwnersAndFriends() throws {
        let client = try TestServer.client()
        let a = try client.register("pic"), b = try client.register("pic"), c = try client.register("pic")
        let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0xff]
        let put = try client.send("PUT", "/me/avatar", token: a.token, body: png, headers: ["Content-Type": "image/png"])
        #expect(put.status == 204)
        let mine = try client.send("GET", "/users/\(a.id)/avatar", token: a.token)
        #expect(mine.status == 200 && mine.body == png && mine.header("Content-Type") == "image/png")
        let tag = try #require(mine.header("ETag"))
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token, headers: ["If-None-Match": tag]).status == 304)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: c.token).status == 404)
        _ = try ask(client, a, b.email); _ = try ask(client, b, a.email)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: b.token).body == png)

        let gif = try client.send("PUT", "/me/avatar", token: a.token, body: Array("GIF89a....".utf8), headers: ["Content-Type": "image/png"])
        #expect(gif.status == 415 && gif.code == "unsupported_image")
        let text = try client.send("PUT", "/me/avatar", token: a.token, body: png, headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415)
        let huge = try client.send("PUT", "/me/avatar", token: a.token, body: png + [UInt8](repeating: 0, count: 300_000),
                                   headers: ["Content-Type": "image/png"])
        #expect(huge.status == 413)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token).body == png)
        #expect(try client.send("DELETE", "/me/avatar", token: a.token).status == 204)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token).status == 404)
    }

    @Test func leaderboardsRankFriendsByMinutes() throws {
        let client = try TestServer.client()
        let a = try client.register("lead"), b = try client.register("lead")
        _ = try ask(client, a, b.email); _ = try ask(client, b, a.email)
        let formatter = ISO8601DateFormatter()
        let start = formatter.string(from: Date().addingTimeInterval(-1800)), end = formatter.string(from: Date().addingTimeInterval(-60))
        #expect(try client.send("POST", "/focus-sessions", token: b.token,
                                json: #"{"id":"\#(UUID().uuidString)","started_at":"\#(start)","ended_at":"\#(end)"}"#).status == 201)
        let board = try client.send("GET", "/leaderboards/daily?scope=friends&limit=5", token: a.token)
        #expect(board.status == 200)
        let entries = board.json["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        #expect((entries.first?["user"] as? [String: Any])?["id"] as? String == b.id)
        #expect((board.json["me"] as? [String: Any])?["rank"] as? Int == 2)
        #expect(try client.send("GET", "/leaderboards/monthly", token: a.token).status == 400)
        #expect(try client.send("GET", "/leaderboards/daily?limit=1000", token: a.token).code == "invalid_field")
    }
}

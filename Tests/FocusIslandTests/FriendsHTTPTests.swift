// Friends, avatars and leaderboards end to end, including the races: each case in-process
// through the pipeline and over a real socket (Transport.swift).
import Foundation
import Testing

@Suite struct FriendsHTTPTests {
    func ask(_ client: Client, _ from: Account, _ email: String) throws -> HTTPResult {
        try client.send("POST", "/friend-requests", token: from.token, json: #"{"email":"\#(email)"}"#)
    }

    /// Asks and returns the new request's id.
    func requestID(_ client: Client, _ from: Account, _ to: Account) throws -> String {
        try ask(client, from, to.email).decode(AskReply.self).request.id
    }

    func friendIDs(_ client: Client, _ account: Account) throws -> [String] {
        try client.send("GET", "/friends", token: account.token).decode(Friends.self).friends.map(\.id)
    }

    func pairState(_ a: Account, _ b: Account) throws -> String {
        try TestEnvironment.scalar(
            """
            select coalesce((select status from app.friendships
                             where user_low = least($1::uuid, $2::uuid) and user_high = greatest($1::uuid, $2::uuid)), 'none')
            """, [a.id, b.id]) ?? "?"
    }

    @Test(arguments: Transport.allCases)
    func askAcceptListRemove(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("ann"), b = try client.register("ben")
        let asked = try ask(client, a, b.email.uppercased())
        #expect(asked.status == 201)
        let requestID = try asked.decode(AskReply.self).request.id

        let incoming = try client.send("GET", "/friend-requests", token: b.token).decode(FriendRequests.self)
        #expect(
            incoming
                == FriendRequests(
                    incoming: [.init(id: requestID, from: UserCard(id: a.id, displayName: "ann", hasAvatar: false))],
                    outgoing: []))
        let outgoing = try client.send("GET", "/friend-requests", token: a.token).decode(FriendRequests.self)
        #expect(
            outgoing
                == FriendRequests(
                    incoming: [],
                    outgoing: [.init(id: requestID, to: UserCard(id: b.id, displayName: "ben", hasAvatar: false))]))

        let accepted = try client.send("POST", "/friend-requests/\(requestID)/accept", token: b.token)
        #expect(accepted.status == 200)
        #expect(try accepted.decode(AcceptReply.self).friend.id == a.id)
        #expect(try friendIDs(client, a) == [b.id])
        #expect(try friendIDs(client, b) == [a.id])
        let island = try client.send("GET", "/users/\(b.id)", token: a.token)
        #expect(island.status == 200)
        #expect(try island.decode(Friend.self).selected.pet?.name == "Sprout")

        #expect(try client.send("DELETE", "/friends/\(b.id)", token: a.token).status == 204)
        #expect(try friendIDs(client, a).isEmpty)
        #expect(try friendIDs(client, b).isEmpty)
        #expect(try client.send("GET", "/users/\(b.id)", token: a.token).status == 404)
        let again = try client.send("DELETE", "/friends/\(b.id)", token: a.token)
        #expect(again.status == 404 && again.code == "not_friends")
    }

    @Test(arguments: Transport.allCases)
    func askingEachOtherAtOnceEndsAsOneFriendship(transport: Transport) throws {
        let client = transport.client
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

    @Test(arguments: Transport.allCases)
    func acceptAndCancelRacingEndConsistently(transport: Transport) throws {
        let client = transport.client
        var outcomes: [String] = []
        for _ in 0..<6 {
            let a = try client.register("racer"), b = try client.register("racer")
            let requestID = try requestID(client, a, b)
            let statuses = try concurrently(2) { index in
                try
                    (index == 0
                    ? client.send("POST", "/friend-requests/\(requestID)/accept", token: b.token)
                    : client.send("DELETE", "/friend-requests/\(requestID)", token: a.token)).status
            }
            let state = try pairState(a, b)
            // Exactly one wins: accepted (accept 200, cancel 404) or gone (cancel 204, accept 404).
            #expect((statuses == [200, 404] && state == "accepted") || (statuses == [404, 204] && state == "none"))
            outcomes.append("\(statuses) → \(state)")
        }
        print("\(transport): accept vs cancel races: \(outcomes.joined(separator: "; "))")
    }

    @Test(arguments: Transport.allCases)
    func aThirdUserCanNeitherSeeNorActOnARequest(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("ann"), b = try client.register("ben"), c = try client.register("cat")
        let requestID = try requestID(client, a, b)
        let seen = try client.send("GET", "/friend-requests", token: c.token).decode(FriendRequests.self)
        #expect(seen == FriendRequests(incoming: [], outgoing: []))
        for (method, path) in [
            ("POST", "/friend-requests/\(requestID)/accept"), ("POST", "/friend-requests/\(requestID)/decline"),
            ("DELETE", "/friend-requests/\(requestID)"),
        ] {
            let result = try client.send(method, path, token: c.token)
            #expect(result.status == 404 && result.code == "friend_request_not_found")
        }
        let unknown = try client.send("POST", "/friend-requests/\(UUID().uuidString)/accept", token: b.token)
        #expect(unknown.status == 404 && unknown.code == "friend_request_not_found")
        #expect(try pairState(a, b) == "pending")
        #expect(try client.send("GET", "/users/\(a.id)", token: c.token).status == 404)
    }

    @Test(arguments: Transport.allCases)
    func refusedRequestsAnswerTheirCodes(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("ann"), b = try client.register("ben")
        #expect(try ask(client, a, a.email).code == "cannot_friend_self")
        #expect(try ask(client, a, TestEnvironment.email("ghost")).code == "user_not_found")
        #expect(try ask(client, a, b.email).status == 201)
        #expect(try ask(client, a, b.email).status == 200)  // asking again answers the pending request
        let bad = try client.send("POST", "/friend-requests", token: a.token, json: #"{"email":7}"#)
        #expect(bad.status == 400 && bad.code == "invalid_field")
    }

    @Test(arguments: Transport.allCases)
    func friendListsHaveETagsThatChangeExactlyWithTheList(transport: Transport) throws {
        let client = transport.client
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

    @Test(arguments: Transport.allCases)
    func avatarsAreForOwnersAndFriends(transport: Transport) throws {
        let client = transport.client
        let a = try client.register("pic"), b = try client.register("pic"), c = try client.register("pic")
        let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0xff]
        let put = try client.send("PUT", "/me/avatar", token: a.token, body: png, headers: ["Content-Type": "image/png"])
        #expect(put.status == 204)
        let mine = try client.send("GET", "/users/\(a.id)/avatar", token: a.token)
        #expect(mine.status == 200 && mine.body == png && mine.header("Content-Type") == "image/png")
        let tag = try #require(mine.header("ETag"))
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token, headers: ["If-None-Match": tag]).status == 304)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: c.token).status == 404)
        _ = try ask(client, a, b.email)
        _ = try ask(client, b, a.email)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: b.token).body == png)

        let gif = try client.send(
            "PUT", "/me/avatar", token: a.token, body: Array("GIF89a....".utf8), headers: ["Content-Type": "image/png"])
        #expect(gif.status == 415 && gif.code == "unsupported_image")
        let text = try client.send("PUT", "/me/avatar", token: a.token, body: png, headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415)
        // Over the 256 KiB limit (app.avatar_max_bytes()): api.me_avatar_update answers 413.
        let huge = try client.send(
            "PUT", "/me/avatar", token: a.token, body: png + [UInt8](repeating: 0, count: 300_000),
            headers: ["Content-Type": "image/png"])
        #expect(huge.status == 413)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token).body == png)
        #expect(try client.send("DELETE", "/me/avatar", token: a.token).status == 204)
        #expect(try client.send("GET", "/users/\(a.id)/avatar", token: a.token).status == 404)
    }

    /// Today's minutes come from a session that ends the instant the database's UTC day began,
    /// so the ranking holds at any hour (at 00:00:03 "the last 30 minutes" were yesterday's).
    @Test(arguments: Transport.allCases)
    func leaderboardsRankFriendsByMinutes(transport: Transport) throws {
        let client = transport.client
        let (a, b, recorded, board, clock) = try TestEnvironment.withinOneUTCDay { clock in
            let a = try client.register("lead"), b = try client.register("lead")
            _ = try ask(client, a, b.email)
            _ = try ask(client, b, a.email)
            let session =
                #"{"id":"\#(UUID().uuidString)","started_at":"\#((clock.todayStart - 1800).rfc3339)","ended_at":"\#(clock.todayStart.rfc3339)"}"#
            let recorded = try client.send("POST", "/focus-sessions", token: b.token, json: session)
            return (a, b, recorded, try client.send("GET", "/leaderboards/daily?scope=friends&limit=5", token: a.token), clock)
        }
        #expect(recorded.status == 201)
        #expect(board.status == 200)
        #expect(
            try board.decode(Leaderboard.self)
                == Leaderboard(
                    periodStart: clock.todayStart.rfc3339,
                    entries: [
                        .init(rank: 1, user: UserCard(id: b.id, displayName: "lead", hasAvatar: false), minutes: 30),
                        .init(rank: 2, user: UserCard(id: a.id, displayName: "lead", hasAvatar: false), minutes: 0),
                    ],
                    me: .init(rank: 2, minutes: 0)))
        #expect(try client.send("GET", "/leaderboards/monthly", token: a.token).status == 400)
        #expect(try client.send("GET", "/leaderboards/daily?limit=1000", token: a.token).code == "invalid_field")
    }
}

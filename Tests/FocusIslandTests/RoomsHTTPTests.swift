// Focus rooms end to end: three friends open, join and start a room and see each step on their
// streams; a give-up fails the room for all; the bonus when everyone finishes; members who
// vanished settled by the scheduled job; the error cases; and the races (two joins for the last
// place, a start racing a leave, an abandon racing a finish). Time passes by moving a room and
// its sessions back in the database (as an operator could), never by waiting.
import Foundation
import Testing

@Suite struct RoomsHTTPTests {
    static let broadcastTypes: Set<String?> = ["catalog.changed", "tips.changed"]

    /// Makes `a` and `b` friends: b asks, a accepts.
    func befriend(_ client: Client, _ a: Account, _ b: Account) throws {
        let asked = try client.send("POST", "/friend-requests", token: b.token, json: #"{"email":"\#(a.email)"}"#)
        let id = (asked.json["request"] as? [String: Any])?["id"] as? String ?? ""
        let accepted = try client.send("POST", "/friend-requests/\(id)/accept", token: a.token)
        #expect(accepted.status == 200)
    }

    /// A host with `count` friends.
    func people(_ client: Client, friends count: Int) throws -> (host: Account, friends: [Account]) {
        let host = try client.register("host")
        let friends = try (0..<count).map { _ in try client.register("friend") }
        for friend in friends { try befriend(client, host, friend) }
        return (host, friends)
    }

    func room(_ result: HTTPResult) -> [String: Any] { result.json["room"] as? [String: Any] ?? [:] }

    func open(_ client: Client, _ host: Account, minutes: Int = 25, invite: [Account] = []) throws -> (id: String, code: String) {
        let invitees = invite.map { "\"\($0.id)\"" }.joined(separator: ",")
        let opened = try client.send(
            "POST", "/rooms", token: host.token, json: #"{"planned_minutes":\#(minutes),"invite":[\#(invitees)]}"#)
        #expect(opened.status == 201, "\(opened.text)")
        let room = room(opened)
        return (room["id"] as? String ?? "", room["code"] as? String ?? "")
    }

    func join(_ client: Client, _ account: Account, _ code: String) throws -> HTTPResult {
        try client.send("POST", "/rooms/\(code)/join", token: account.token)
    }

    /// Moves the room and its members' sessions `seconds` into the past.
    func rewind(_ roomID: String, by seconds: Int) throws {
        let owner = try TestEnvironment.owner()
        _ = try owner.execute(
            "update app.rooms set created_at = created_at - make_interval(secs => $2::integer), "
                + "started_at = started_at - make_interval(secs => $2::integer) where id = $1::uuid", [roomID, String(seconds)])
        _ = try owner.execute(
            "update app.focus_sessions s set started_at = started_at - make_interval(secs => $2::integer), "
                + "ended_at = ended_at - make_interval(secs => $2::integer), "
                + "occupies = tstzrange(lower(occupies) - make_interval(secs => $2::integer), upper(occupies) - make_interval(secs => $2::integer)) "
                + "where s.id in (select session_id from app.room_members where room_id = $1::uuid)", [roomID, String(seconds)])
    }

    func session(_ roomID: String, _ account: Account) throws -> String {
        try TestEnvironment.scalar(
            "select session_id from app.room_members where room_id = $1::uuid and user_id = $2::uuid", [roomID, account.id]) ?? ""
    }

    /// '<entry> <amount>' for each ledger row of the account's from the room (its sessions and bonus).
    func ledger(_ roomID: String, _ account: Account) throws -> String {
        try TestEnvironment.scalar(
            "select coalesce(string_agg(c.entry || ' ' || c.amount, ', ' order by c.entry), '') from app.coin_ledger c "
                + "where c.user_id = $2::uuid and (c.room_id = $1::uuid or c.session_id in "
                + "(select session_id from app.room_members where room_id = $1::uuid))", [roomID, account.id]) ?? ""
    }

    func stream(_ account: Account) throws -> EventStreamClient {
        try EventStreamClient(port: TestServer.client().port, target: "/events", token: account.token, headers: [:])
    }

    /// The next `count` room events on the stream, as '<type>[ <user>]' with users by their names
    /// in `names`; each awaited up to a deadline (an absent event fails the test, never a slow one).
    func roomEvents(_ stream: EventStreamClient, _ count: Int, _ names: [String: String]) throws -> [String] {
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while lines.count < count, let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            guard let type = event.type, type.hasPrefix("room.") else { continue }
            let user = (event.json["data"] as? [String: Any])?["user_id"] as? String
            lines.append(type + (user.map { " " + (names[$0] ?? $0) } ?? ""))
        }
        return lines
    }

    /// Three friends open, join and start a room, see each step live; one gives up: the room
    /// fails for all (no bonus), the two who stayed earn their own sessions' coins.
    @Test func threeFriendsOpenJoinStartAndOneGivesUp() throws {
        let client = Transport.socket.client
        let (ann, friends) = try people(client, friends: 2)
        let bob = friends[0], cat = friends[1]
        let names = [ann.id: "ann", bob.id: "bob", cat.id: "cat"]
        let annStream = try stream(ann), bobStream = try stream(bob), catStream = try stream(cat)

        let (id, code) = try open(client, ann, invite: [bob])
        #expect(try roomEvents(bobStream, 1, names) == ["room.invited ann"])
        #expect(try join(client, bob, code.lowercased()).status == 200)
        #expect(try roomEvents(annStream, 1, names) == ["room.joined bob"])
        #expect(try join(client, cat, code).status == 200)
        #expect(try roomEvents(annStream, 1, names) == ["room.joined cat"])
        #expect(try roomEvents(bobStream, 1, names) == ["room.joined cat"])

        let started = try client.send("POST", "/rooms/\(id)/start", token: ann.token)
        #expect(started.status == 200 && room(started)["status"] as? String == "running")
        #expect(try roomEvents(bobStream, 1, names) == ["room.started"])
        #expect(try roomEvents(catStream, 1, names) == ["room.started"])
        #expect(
            try TestEnvironment.scalar(
                "select count(distinct s.started_at) || ' ' || count(*) from app.room_members m join app.focus_sessions s on s.id = m.session_id "
                    + "where m.room_id = $1::uuid and s.ended_at is null", [id]) == "1 3",
            "three live sessions, started at one server time")

        try rewind(id, by: 600)
        let gaveUp = try client.send("POST", "/focus-sessions/\(try session(id, cat))/abandon", token: cat.token)
        #expect(gaveUp.status == 200)
        #expect(try roomEvents(annStream, 1, names) == ["room.gave_up cat"])
        #expect(try roomEvents(bobStream, 1, names) == ["room.gave_up cat"])
        #expect(room(try client.send("GET", "/rooms/\(id)", token: bob.token))["status"] as? String == "failed")

        try rewind(id, by: 16 * 60)  // the plan's end has passed; within the grace
        for account in [ann, bob] {
            let finished = try client.send("POST", "/focus-sessions/\(try session(id, account))/finish", token: account.token)
            #expect((finished.json["session"] as? [String: Any])?["coins_earned"] as? Int == 25)
        }
        #expect(try roomEvents(catStream, 3, names) == ["room.finished ann", "room.finished bob", "room.ended"])
        #expect(try ledger(id, ann) == "earn 25" && ledger(id, bob) == "earn 25" && ledger(id, cat) == "")
        let members = room(try client.send("GET", "/rooms/\(id)", token: cat.token))["members"] as? [[String: Any]] ?? []
        #expect(
            Set(members.map { "\(names[($0["user"] as? [String: Any])?["id"] as? String ?? ""] ?? "?") \($0["outcome"] as? String ?? "")" })
                == ["ann completed", "bob completed", "cat gave_up"])
        let history = try client.send("GET", "/rooms", token: cat.token)
        #expect((history.json["rooms"] as? [[String: Any]])?.first?["id"] as? String == id, "the room stays in cat's history")
    }

    @Test(arguments: Transport.allCases)
    func everyoneFinishingEarnsTheBonusOnce(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try people(client, friends: 2)
        let (id, code) = try open(client, host)
        for friend in friends { #expect(try join(client, friend, code).status == 200) }
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        try rewind(id, by: 26 * 60)
        let everyone = [host] + friends
        let ids = try everyone.map { try session(id, $0) }
        // The last finishes race: the bonus is paid once to each, whichever commits last.
        let statuses = try concurrently(3) { index in
            try client.send("POST", "/focus-sessions/\(ids[index])/finish", token: everyone[index].token).status
        }
        #expect(statuses == [200, 200, 200])
        for account in everyone { #expect(try ledger(id, account) == "bonus 5, earn 25") }
        #expect(room(try client.send("GET", "/rooms/\(id)", token: host.token))["status"] as? String == "completed")
    }

    /// An abandon racing a finish: whatever the order, the room fails, nobody gets a bonus.
    @Test(arguments: Transport.allCases)
    func anAbandonRacingAFinishFailsTheRoom(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try people(client, friends: 1)
        let guest = friends[0]
        let (id, code) = try open(client, host)
        #expect(try join(client, guest, code).status == 200)
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        try rewind(id, by: 26 * 60)
        let hostSession = try session(id, host), guestSession = try session(id, guest)
        let statuses = try concurrently(2) { index in
            index == 0
                ? try client.send("POST", "/focus-sessions/\(hostSession)/abandon", token: host.token).status
                : try client.send("POST", "/focus-sessions/\(guestSession)/finish", token: guest.token).status
        }
        #expect(statuses == [200, 200])
        #expect(
            try TestEnvironment.scalar("select status || ' ' || (ended_at is not null) from app.rooms where id = $1::uuid", [id])
                == "failed true")
        #expect(try ledger(id, host) == "" && ledger(id, guest) == "earn 25")
    }

    /// Two friends join at once for the last place: one gets it, the other 409 room_full.
    @Test(arguments: Transport.allCases)
    func twoJoinsForTheLastPlaceGetOneEach(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try people(client, friends: 5)
        let (id, code) = try open(client, host)
        for friend in friends.prefix(3) { #expect(try join(client, friend, code).status == 200) }
        let results = try concurrently(2) { index in try join(client, friends[3 + index], code) }
        #expect(results.map(\.status).sorted() == [200, 409])
        #expect(results.compactMap(\.code) == ["room_full"])
        #expect(
            try TestEnvironment.scalar("select count(*) from app.room_members where room_id = $1::uuid and state = 'joined'", [id]) == "5")
    }

    /// A start racing a leave: the leave is before the start (no session for the leaver) or
    /// answers 409 room_not_open (the leaver's session runs); never both, never neither.
    @Test(arguments: Transport.allCases)
    func aStartRacingALeaveIsOneOrTheOther(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try people(client, friends: 2)
        let (id, code) = try open(client, host)
        for friend in friends { #expect(try join(client, friend, code).status == 200) }
        let leaver = friends[1]
        let results = try concurrently(2) { index in
            index == 0
                ? try client.send("POST", "/rooms/\(id)/start", token: host.token)
                : try client.send("POST", "/rooms/\(id)/leave", token: leaver.token)
        }
        #expect(results[0].status == 200)
        let hasSession = try session(id, leaver) != ""
        if results[1].status == 200 {
            #expect(!hasSession)
        } else {
            #expect(results[1].code == "room_not_open" && hasSession)
        }
    }

    /// Members whose phones vanished, in a room that started just before yesterday's midnight:
    /// the scheduled job settles them (sessions finished at the plan's end, the room failed).
    @Test func aRoomWhoseMembersVanishIsSettledByTheScheduledJob() throws {
        let client = Transport.inProcess.client
        let (host, friends) = try people(client, friends: 2)
        let (id, code) = try open(client, host, minutes: 20)
        for friend in friends { #expect(try join(client, friend, code).status == 200) }
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        let back = try TestEnvironment.scalar(
            "select extract(epoch from started_at - ((date_trunc('day', now() at time zone 'UTC') - interval '1 day 10 minutes') at time zone 'UTC'))::integer "
                + "from app.rooms where id = $1::uuid", [id])
        try rewind(id, by: Int(back ?? "") ?? 0)
        _ = try TestEnvironment.owner().execute("update app.scheduled_jobs set next_run_at = now() where name = 'settle_rooms'", [])
        _ = try TestEnvironment.scalar("select api.jobs_run()")  // the server's job runner may have run it first: the room tells
        let settled = room(try client.send("GET", "/rooms/\(id)", token: friends[0].token))
        #expect(settled["status"] as? String == "failed" && settled["ended_at"] is String)
        let outcomes = (settled["members"] as? [[String: Any]] ?? []).map { $0["outcome"] as? String }
        #expect(outcomes == ["vanished", "vanished", "vanished"])
        for account in [host] + friends { #expect(try ledger(id, account) == "earn 20") }
    }

    @Test(arguments: Transport.allCases)
    func errorCasesAnswerTheirCodesAndChangeNothing(transport: Transport) throws {
        let client = transport.client
        let (host, friends) = try people(client, friends: 5)
        let stranger = try client.register("stranger")
        let (id, code) = try open(client, host)
        func rows() throws -> String? {
            try TestEnvironment.scalar(
                "select (select count(*) from app.room_members where room_id = $1::uuid) || ' ' || "
                    + "(select status from app.rooms where id = $1::uuid) || ' ' || "
                    + "(select count(*) from app.rooms where host_id = any(array[$2::uuid, $3::uuid]))", [id, friends[0].id, stranger.id])
        }
        let before = try rows()
        let cases: [(String, String, Account?, String?, Int, String)] = [
            ("POST", "/rooms/ZZZZZZZZ/join", friends[0], nil, 404, "room_not_found"),
            ("POST", "/rooms/\(code)/join", stranger, nil, 404, "room_not_found"),
            ("POST", "/rooms/ABCDEFGHJKMNPQRSTVWXY/join", friends[0], nil, 400, "invalid_field"),
            ("POST", "/rooms", friends[0], #"{"planned_minutes":"#, 400, "invalid_json"),
            ("POST", "/rooms/\(code)/join", nil, nil, 401, "unauthorized"),
            ("POST", "/rooms", friends[0], #"{"planned_minutes":"25"}"#, 400, "invalid_field"),
            ("POST", "/rooms", friends[0], #"{"planned_minutes":25,"invite":["\#(stranger.id)"]}"#, 404, "user_not_found"),
            ("POST", "/rooms", friends[0], #"{"planned_minutes":25,"guests":[]}"#, 400, "invalid_field"),
            ("GET", "/rooms/\(id)", stranger, nil, 404, "room_not_found"),
            ("GET", "/rooms/not-a-uuid", host, nil, 400, "invalid_field"),
            ("POST", "/rooms/\(id)/start", stranger, nil, 404, "room_not_found"),
            ("POST", "/rooms/\(UUID().uuidString)/start", host, nil, 404, "room_not_found"),
            ("POST", "/rooms/\(id)/start", host, nil, 409, "room_too_small"),
            ("POST", "/rooms/\(id)/leave", stranger, nil, 404, "room_not_found"),
        ]
        for (method, path, account, json, status, code) in cases {
            let result = try client.send(method, path, token: account?.token, json: json)
            #expect(result.status == status && result.code == code, "\(method) \(path) \(json ?? ""): \(result.status) \(result.text)")
        }
        #expect(try rows() == before, "nothing changed")

        for friend in friends.prefix(4) { #expect(try join(client, friend, code).status == 200) }
        let full = try join(client, friends[4], code)
        #expect(full.status == 409 && full.code == "room_full")
        let notHost = try client.send("POST", "/rooms/\(id)/start", token: friends[0].token)
        #expect(notHost.status == 403 && notHost.code == "not_room_host")
        #expect(try client.send("POST", "/rooms/\(id)/start", token: host.token).status == 200)
        let again = try client.send("POST", "/rooms/\(id)/start", token: host.token)
        #expect(again.status == 409 && again.code == "room_not_open", "a second start")
        #expect(
            try TestEnvironment.scalar(
                "select count(*) from app.focus_sessions s join app.room_members m on m.session_id = s.id where m.room_id = $1::uuid", [id])
                == "5", "one session per member, not two")
        let late = try client.send("POST", "/rooms/\(id)/leave", token: friends[0].token)
        #expect(late.status == 409 && late.code == "room_not_open")
    }
}

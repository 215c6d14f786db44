// The end-to-end journeys through the client library (FocusIslandClient) against
// the real server over HTTP: accounts, the shop (a purchase whose answer is lost and is
// retried, charged once), friends and their live events (a stream dropped and resumed, a
// stream refused and replaced by long-polls), focus sessions, and the offline queue. Every
// answer decodes through the generated models with strict decoding: a member the document
// does not describe fails the test.
import FocusIslandClient
import Foundation
import Testing

@Suite struct ClientJourneyTests {
    @Test func registerLoginLogoutAndTypedErrors() async throws {
        let (client, user, email) = try await newAccount("ada")
        let me = try await client.meGet()
        #expect(me.id == user.id)
        #expect(me.email == email)

        let phone = try journeyClient()
        let signedIn = try await phone.login(email: email, password: journeyPassword)
        #expect(phone.token == signedIn.token)
        #expect(signedIn.token != client.token)
        let devices = try await phone.meTokensList()
        #expect(devices.tokens.count == 2)
        #expect(devices.tokens.filter(\.current).count == 1)

        do {
            try await journeyClient().login(email: email, password: "not the password")
            Issue.record("a wrong password signed in")
        } catch let error as FocusIslandError {
            #expect(error.code == .invalidCredentials)
            #expect(error.status == 401)
            #expect(error.detail?.isEmpty == false)
        }

        try await phone.logout()
        #expect(phone.token == nil)
        do {
            phone.token = signedIn.token
            _ = try await phone.meGet()
            Issue.record("a revoked token still worked")
        } catch {
            #expect(error.code == .unauthorized)
        }
    }

    @Test func shopJourneyBuysSelectsAndCachesTheCatalog() async throws {
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        let (client, user, _) = try await newAccount("shopper", proxy)
        try JourneyServer.grantCoins(user.id, 100)

        let catalog = try await client.shopItemsList()
        // A sound: the shop's own tests add and retire furniture meanwhile.
        let item = try #require(catalog.sounds.filter { $0.price > 0 && $0.price <= 100 }.min { $0.price < $1.price })
        // The second read sends the ETag: 304 and the same catalog from the cache, or 200 and a
        // newer one (the other tests in this process change the catalog meanwhile).
        let notModified = proxy.responseStatuses.filter { $0 == 304 }.count
        let again = try await client.shopItemsList()
        let catalogReads = proxy.requestHeads.filter { $0.hasPrefix("GET /shop/items ") }
        #expect(catalogReads.last?.lowercased().contains("if-none-match: ") == true)
        if proxy.responseStatuses.filter({ $0 == 304 }).count > notModified {
            #expect(again == catalog)
        } else {
            #expect(again.version > catalog.version)
        }

        let bought = try await client.shopPurchasesCreate(ItemChoiceBody(itemId: item.id))
        guard case .created(let purchase) = bought else {
            Issue.record("a first purchase answered \(bought)")
            return
        }
        #expect(purchase.item.id == item.id)
        #expect(purchase.balance == 100 - item.price)
        #expect(!purchase.alreadyOwned)

        let boughtAgain = try await client.shopPurchasesCreate(ItemChoiceBody(itemId: item.id))
        #expect(boughtAgain == .ok(boughtAgain.value))
        #expect(boughtAgain.value.alreadyOwned)
        #expect(boughtAgain.value.balance == 100 - item.price)

        let profile = try await client.meSelectedUpdate(kind: item.kind, ItemChoiceBody(itemId: item.id))
        let selected = [profile.selected.pet, profile.selected.sound, profile.selected.furniture].compactMap { $0?.id }
        #expect(selected.contains(item.id))
        let inventory = try await client.meItemsList(kind: item.kind)
        #expect(inventory.items.map(\.item.id).contains(item.id))

        let dearest = try #require((catalog.pets + catalog.sounds).max { $0.price < $1.price })
        do {
            _ = try await client.shopPurchasesCreate(ItemChoiceBody(itemId: dearest.id))
            Issue.record("bought \(dearest.price) coins' worth with \(100 - item.price)")
        } catch {
            #expect(error.code == .insufficientFunds)
            #expect(error.status == 409)
            if case .problem(let problem) = error {
                #expect(problem.problem?.balance == 100 - item.price)
                #expect(problem.problem?.price == dearest.price)
            }
        }
        #expect(try await client.meGet().balance == 100 - item.price)
    }

    @Test func aPurchaseWhoseAnswerIsLostIsRetriedAndChargedOnce() async throws {
        let (owner, user, _) = try await newAccount("retrier")
        try JourneyServer.grantCoins(user.id, 100)
        let catalog = try await owner.shopItemsList()
        let item = try #require(catalog.sounds.first { $0.price > 0 && $0.price <= 100 })

        // A client whose first connection carries the purchase: the server does it, and the
        // connection drops before its answer comes back.
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        proxy.dropNextResponses(1)
        let phone = try journeyClient(proxy, token: owner.token)
        let bought = try await phone.shopPurchasesCreate(ItemChoiceBody(itemId: item.id))

        // Two attempts with one Idempotency-Key; the second was answered with the first answer.
        let attempts = proxy.requestHeads.filter { $0.hasPrefix("POST /shop/purchases ") }
        #expect(attempts.count == 2)
        let keys = Set(
            attempts.compactMap { head in
                head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("idempotency-key:") }
            })
        #expect(keys.count == 1)
        #expect(proxy.responseStatuses.prefix(2) == [201, 201])
        #expect(bought == .created(bought.value))
        #expect(bought.value.balance == 100 - item.price)

        // Charged once: one spend in the ledger, and the balance.
        let export = try await owner.meExportGet()
        let spends = export.ledger.filter { $0.entry == "spend" }
        #expect(spends.count == 1)
        #expect(spends.first?.amount == -item.price)
        #expect(export.profile.balance == 100 - item.price)
    }

    @Test func aBusyServerIsAskedAgainAndALongLockoutIsNot() async throws {
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        let (owner, _, _) = try await newAccount("patient")
        let phone = try journeyClient(proxy, token: owner.token)

        // Two 503s (what a load balancer says while the server restarts), then the server.
        proxy.answerNext(503, code: "busy", headers: ["Retry-After": "0"], times: 2)
        let started = try await phone.focusSessionsStart(SessionStartBody(plannedMinutes: 25))
        let attempts = proxy.requestHeads.filter { $0.hasPrefix("POST /focus-sessions/start ") }
        #expect(attempts.count >= 3)  // a 408 for a connection that idled too long would add one
        let keys = Set(attempts.compactMap { $0.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("idempotency-key:") } })
        #expect(keys.count == 1)
        #expect(proxy.responseStatuses.prefix(2) == [503, 503])
        #expect(proxy.responseStatuses.filter { $0 == 201 }.count == 1)
        guard case .ok(let current) = try await owner.focusSessionsCurrentGet() else {
            Issue.record("no running session")
            return
        }
        #expect(current.session.id == started.session.id)

        // A 429 whose Retry-After is a quarter of an hour is thrown at once, typed.
        proxy.answerNext(429, code: "too_many_attempts", headers: ["Retry-After": "900"])
        do {
            _ = try await phone.meGet()
            Issue.record("a 429 was not thrown")
        } catch {
            #expect(error.code == .tooManyAttempts)
            #expect(error.status == 429)
            #expect(error.retryAfter == 900)
        }
        #expect(proxy.requestHeads.filter { $0.hasPrefix("GET /me ") }.count == 1)
    }

    @Test func focusSessionJourney() async throws {
        let (client, _, _) = try await newAccount("focus")
        let before = Time(try JourneyServer.databaseNow().addingTimeInterval(-60))
        guard case .noContent = try await client.focusSessionsCurrentGet() else {
            Issue.record("a new account has a running session")
            return
        }
        let started = try await client.focusSessionsStart(SessionStartBody(plannedMinutes: 25))
        #expect(started.session.plannedMinutes == 25)
        #expect(started.session.endedAt == nil)
        guard case .ok(let current) = try await client.focusSessionsCurrentGet() else {
            Issue.record("no running session after start")
            return
        }
        #expect(current.session.id == started.session.id)

        do {
            _ = try await client.focusSessionsStart(SessionStartBody(plannedMinutes: 25))
            Issue.record("a second session started")
        } catch {
            #expect(error.code == .sessionInProgress)
            if case .problem(let problem) = error { #expect(problem.problem?.id == started.session.id) }
        }

        // A stated end: not after the start is refused (422) and the session keeps running.
        do {
            _ = try await client.focusSessionsFinish(id: started.session.id, SessionFinishBody(endedAt: started.session.startedAt))
            Issue.record("an ended_at at the start was accepted")
        } catch {
            #expect(error.code == .invalidSession && error.status == 422)
        }
        let finished = try await client.focusSessionsFinish(id: started.session.id)
        #expect(finished.session.id == started.session.id)
        #expect(finished.session.endedAt != nil)
        let rated = try await client.focusSessionsRate(id: started.session.id, RatingBody(rating: .good))
        #expect(rated.session.rating == .good)

        let list = try await client.focusSessionsList(from: before)
        #expect(list.sessions.map(\.id) == [started.session.id])
        _ = try await client.meStatsGet()
    }

    /// An app names its version; below the platform's minimum (1.0.0 as seeded) it is told to
    /// update, with the store's URL, and may still read the config. Android: ConfigHTTPTests
    /// moves the iOS minimum while other suites run.
    @Test func anOldAppIsToldToUpdateAndStillReadsTheConfig() async throws {
        let (client, _, _) = try await newAccount("old-build")
        let old = try FocusIslandClient(
            baseURL: try JourneyServer.baseURL(), token: client.token, strictDecoding: true, clientVersion: "android/0.9")
        let config = try await old.configGet()
        #expect(config.economy.minMinutesToEarn >= 1)
        guard case .object(let platforms) = config.platforms, case .object(let android)? = platforms["android"],
            case .string(let store)? = android["store_url"]
        else {
            Issue.record("no Android platform in \(config.platforms)")
            return
        }
        do {
            _ = try await old.meGet()
            Issue.record("an app below the minimum was served")
        } catch {
            #expect(error.code == .upgradeRequired && error.status == 426)
            if case .problem(let problem) = error { #expect(problem.problem?.storeUrl == store) }
        }
        let current = try FocusIslandClient(baseURL: try JourneyServer.baseURL(), token: client.token, clientVersion: "android/1.0.0")
        _ = try await current.meGet()
    }

    @Test func theOfflineQueueKeepsSessionsUntilTheNetworkIsBack() async throws {
        let (owner, _, _) = try await newAccount("offline")
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        proxy.refuse = true
        let phone = try journeyClient(proxy, token: owner.token, attempts: 2)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("focus-island-queue-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sessions.json")

        let now = try JourneyServer.databaseNow()
        let first = SessionBatchItem(
            id: UUID(), startedAt: Time(now.addingTimeInterval(-3 * 3600)), endedAt: Time(now.addingTimeInterval(-3 * 3600 + 1500)),
            plannedMinutes: 25)
        let rated = SessionBatchItem(
            id: UUID(), startedAt: Time(now.addingTimeInterval(-2 * 3600)), endedAt: Time(now.addingTimeInterval(-2 * 3600 + 1800)),
            plannedMinutes: 30, rating: .fine)
        let future = SessionBatchItem(
            id: UUID(), startedAt: Time(now.addingTimeInterval(3600)), endedAt: Time(now.addingTimeInterval(4000)))
        let queue = try SessionQueue(fileURL: file, client: phone)
        for item in [first, rated, future] { try await queue.enqueue(item) }

        do {
            try await queue.flush()
            Issue.record("a flush went through a network that is down")
        } catch {
            guard case .transport = error else { throw error }
        }
        #expect(await queue.pending.count == 3)

        // The app restarts: the queue comes back from its file; the network is back.
        proxy.refuse = false
        let reopened = try SessionQueue(fileURL: file, client: phone)
        #expect(await reopened.pending == [first, rated, future])
        let result = try await reopened.flush()
        #expect(result.applied.map(\.body.session.id) == [first.id, rated.id])
        #expect(result.applied.last?.body.session.rating == .fine)
        #expect(result.rejected.map(\.item.id) == [future.id])
        #expect(result.rejected.first?.problem.code == "invalid_session")
        #expect(result.remaining == 0)
        #expect(await reopened.pending.isEmpty)
        #expect(try await SessionQueue(fileURL: file, client: phone).pending.isEmpty)

        let list = try await owner.focusSessionsList(from: Time(now.addingTimeInterval(-4 * 3600)))
        #expect(Set(list.sessions.map(\.id)) == [first.id, rated.id])
    }

    @Test func friendsMeetThroughLiveEventsAcrossADroppedStream() async throws {
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        let (ann, annProfile, _) = try await newAccount("ann")
        let (bob, bobProfile, bobEmail) = try await newAccount("bob", proxy)
        let (cat, catProfile, _) = try await newAccount("cat")

        let cursor = try await bob.eventsList().next
        let bobEvents = EventCollector(bob.events(after: cursor, options: EventsOptions(mode: .stream, reconnectDelay: 0.1)))
        defer { Task { await bobEvents.stop() } }

        // Ann asks; Bob hears it live.
        guard case .created(let asked) = try await ann.friendRequestsCreate(FriendRequestBody(email: bobEmail)) else {
            Issue.record("a first request was not created")
            return
        }
        let received = try await bobEvents.first { $0.type == "friend_request.received" }
        #expect(received.data["request_id"]?.stringValue == asked.request.id.uuidString.lowercased())
        #expect(received.data["user_id"]?.stringValue == annProfile.id.uuidString.lowercased())

        let requests = try await bob.friendRequestsList()
        #expect(requests.incoming.map(\.id) == [asked.request.id])
        let added = try await bob.friendRequestsAccept(id: asked.request.id)
        #expect(added.friend.id == annProfile.id)

        // The stream drops; the next request reaches Bob after the reconnect (Last-Event-ID).
        proxy.dropAll()
        guard case .created(let catAsked) = try await cat.friendRequestsCreate(FriendRequestBody(email: bobEmail)) else {
            Issue.record("Cat's request was not created")
            return
        }
        let second = try await bobEvents.first { $0.data["request_id"]?.stringValue == catAsked.request.id.uuidString.lowercased() }
        #expect(second.type == "friend_request.received")
        #expect(second.data["user_id"]?.stringValue == catProfile.id.uuidString.lowercased())
        #expect(second.id > received.id)
        let streams = proxy.requestHeads.filter { $0.hasPrefix("GET /events") && $0.lowercased().contains("accept: text/event-stream") }
        #expect(streams.count >= 2)
        #expect(streams.dropFirst().allSatisfy { $0.lowercased().contains("last-event-id: ") }, "\(streams)")
        #expect(await bobEvents.events.filter { $0.id == received.id }.count == 1)

        // Friends on both sides; Bob's list is read again from the cache (304).
        #expect(try await ann.friendsList().friends.map(\.id) == [bobProfile.id])
        let bobFriends = try await bob.friendsList()
        #expect(bobFriends.friends.map(\.id) == [annProfile.id])
        let notModified = proxy.responseStatuses.filter { $0 == 304 }.count
        #expect(try await bob.friendsList() == bobFriends)
        #expect(proxy.requestHeads.filter { $0.hasPrefix("GET /friends ") }.last?.lowercased().contains("if-none-match:") == true)
        #expect(proxy.responseStatuses.filter { $0 == 304 }.count == notModified + 1)
        // Bob's requests changed since he read them (Ann's accepted, Cat's new): the ETag no
        // longer matches, and the cache is not what answers.
        #expect(try await bob.friendRequestsList().incoming.map(\.id) == [catAsked.request.id])
    }

    /// Two friends in a focus room through the library: the invitation, the join by code, the
    /// start (each one's session), a give-up heard live, and the room's history.
    @Test func friendsFocusTogetherInARoom() async throws {
        let (ann, annProfile, annEmail) = try await newAccount("ann")
        let (bob, bobProfile, _) = try await newAccount("bob")
        guard case .created(let asked) = try await bob.friendRequestsCreate(FriendRequestBody(email: annEmail)) else {
            Issue.record("the request was not created")
            return
        }
        _ = try await ann.friendRequestsAccept(id: asked.request.id)
        let annEvents = EventCollector(ann.events(after: try await ann.eventsList().next, options: EventsOptions(mode: .stream)))
        let bobEvents = EventCollector(bob.events(after: try await bob.eventsList().next, options: EventsOptions(mode: .stream)))
        defer { Task { await annEvents.stop() } }
        defer { Task { await bobEvents.stop() } }

        let opened = try await ann.roomsCreate(RoomOpenBody(plannedMinutes: 25, invite: [bobProfile.id]))
        #expect(opened.room.status == .open && opened.room.hostId == annProfile.id)
        let invited = try await bobEvents.first { $0.type == "room.invited" }
        #expect(invited.data["code"]?.stringValue == opened.room.code)
        let joined = try await bob.roomsJoin(code: opened.room.code.lowercased())
        #expect(joined.room.members.map(\.state) == [.joined, .joined])
        do {
            _ = try await bob.roomsStart(id: opened.room.id)
            Issue.record("bob started ann's room")
        } catch {
            #expect(error.code == .notRoomHost)
        }

        let started = try await ann.roomsStart(id: opened.room.id)
        #expect(started.room.status == .running && started.room.sessionId != nil)
        let heard = try await bobEvents.first { $0.type == "room.started" }
        guard case .ok(let current) = try await bob.focusSessionsCurrentGet() else {
            Issue.record("bob has no running session after the start")
            return
        }
        #expect(heard.data["session_id"]?.stringValue == current.session.id.uuidString.lowercased())
        #expect(current.session.startedAt == started.room.startedAt)

        _ = try await bob.focusSessionsAbandon(id: current.session.id)
        let gaveUp = try await annEvents.first { $0.type == "room.gave_up" }
        #expect(gaveUp.data["user_id"]?.stringValue == bobProfile.id.uuidString.lowercased())
        let failed = try await ann.roomsGet(id: opened.room.id).room
        #expect(failed.status == .failed && failed.members.compactMap(\.outcome) == [.gaveUp])
        #expect(try await bob.roomsList().rooms.map(\.id) == [opened.room.id])
    }

    @Test func eventsFallBackToLongPollsWhenNoStreamIsLeft() async throws {
        let proxy = try TCPProxy(upstreamPort: try JourneyServer.port())
        defer { proxy.stop() }
        let (client, user, _) = try await newAccount("listener", proxy)
        let cursor = try await client.eventsList().next
        // The account's three streams (max_streams_per_user), held open.
        var held: [EventCollector] = []
        for _ in 1...3 {
            held.append(EventCollector(client.events(after: cursor, options: EventsOptions(mode: .stream))))
        }
        defer { for collector in held { Task { await collector.stop() } } }
        try await eventually { proxy.responseStatuses.filter { $0 == 200 }.count >= 4 }

        // A fourth: the server says 429 too_many_streams, and the client long-polls instead.
        let fourth = EventCollector(client.events(after: cursor, options: EventsOptions(pollWait: 5)))
        defer { Task { await fourth.stop() } }
        try await eventually { proxy.requestHeads.contains { $0.hasPrefix("GET /events?after=\(cursor)&wait=5 ") } }
        #expect(proxy.responseStatuses.contains(429))

        try JourneyServer.grantCoins(user.id, 7)
        let polled = try await fourth.first { $0.type == "balance.changed" }
        #expect(polled.data["balance"]?.intValue == 7)
        let streamed = try await held[0].first { $0.type == "balance.changed" }
        #expect(streamed.id == polled.id)
    }
}

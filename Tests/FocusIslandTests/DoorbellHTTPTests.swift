import Foundation
import Testing

// The doorbell end to end (Live/Listener.swift): a write through a server rings the waiting
// streams and long-polls of its event on that server, and, by the doorbell that server's
// listener sends, the streams on another server of the same database. Ada's phone writes (a
// setting), her iPad waits: settings.changed goes to her other devices only. Nothing here
// measures time (docs/performance.md, "Streams: the doorbell", has the figures); the bounds
// below only end a test that hears nothing.
@testable import FocusIsland

@Suite struct DoorbellHTTPTests {
    /// The stream's next event of `type` within 10 s (others, broadcasts included, are skipped).
    func next(_ stream: EventStreamClient, type: String) throws -> ServerSentEvent? {
        let deadline = Date().addingTimeInterval(10)
        while let event = try stream.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if event.type == type { return event }
        }
        return nil
    }

    /// Waits (at most 10 s) until `condition` holds.
    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { usleep(10_000) }
        return condition()
    }

    @Test func aWriteThroughTheServerRingsTheWaitingStreamAndLongPollOfItsEvent() throws {
        let client = Transport.socket.client
        let (phone, iPad) = try client.registerOnTwoDevices("ada")
        let stream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: iPad.token)
        #expect(stream.status == 200)
        let start = try #require(client.send("GET", "/events", token: iPad.token).json["next"] as? Int)
        let (polled, done) = inBackground { _ in
            try client.send("GET", "/events?after=\(start)&wait=30", token: iPad.token)
        }
        let streams = try TestServer.running().streams
        #expect(eventually { streams.count(of: iPad.id) == 2 }, "the stream and the long-poll wait")

        let changed = try client.send("PATCH", "/me", token: phone.token, json: #"{"settings":{"show_tip_on_timer":false}}"#)
        #expect(changed.status == 200)
        let event = try #require(try next(stream, type: "settings.changed"), "the iPad's stream hears nothing within 10 s")
        #expect((event.id.flatMap { Int($0) } ?? 0) > start, "an event after the cursor the stream opened at")
        #expect(done.wait(timeout: .now() + 10) == .success, "the long-poll answers after the write")
        let answer = try #require(try polled.values.first??.get())
        #expect(answer.status == 200)
        let types = ((answer.json["events"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }
        // A broadcast from another test may answer the long-poll first; then it asks again.
        if !types.contains("settings.changed") {
            let again = try client.send(
                "GET", "/events?after=\(start)&wait=10", token: iPad.token)
            let typesAgain = ((again.json["events"] as? [[String: Any]]) ?? []).compactMap { $0["type"] as? String }
            #expect(typesAgain.contains("settings.changed"))
        }
    }

    @Test func aWriteThroughOneServerRingsTheStreamsOfAnotherByItsDoorbell() throws {
        let other = try TestServer.another()
        defer { other.stop() }
        let client = Transport.socket.client
        let (phone, iPad) = try client.registerOnTwoDevices("ada")
        #expect(eventually { other.listener.connections == 1 }, "the other server's listener listens")
        let stream = try EventStreamClient(port: other.server.port, target: "/events", token: iPad.token)
        #expect(stream.status == 200)
        let sent = try TestServer.running().listener.doorbellsSent
        let heard = other.listener.doorbellsHeard

        let changed = try client.send("PATCH", "/me", token: phone.token, json: #"{"settings":{"show_tip_on_timer":false}}"#)
        #expect(changed.status == 200)
        #expect(try next(stream, type: "settings.changed") != nil, "the other server's stream hears nothing within 10 s")
        let listener = try TestServer.running().listener
        #expect(eventually { listener.doorbellsSent > sent }, "the writing server rang the doorbell")
        #expect(eventually { other.listener.doorbellsHeard > heard }, "the other server heard it")
    }
}

@Suite struct DoorbellConfigurationTests {
    @Test func eventsDoorbellIsNotifyUnlessSetAndABadValueNamesTheVariable() {
        #expect((try? Configuration(environment: [:]))?.eventsDoorbell == .notify)
        #expect((try? Configuration(environment: ["EVENTS_DOORBELL": "local"]))?.eventsDoorbell == .local)
        #expect((try? Configuration(environment: ["EVENTS_DOORBELL": "off"]))?.eventsDoorbell == .off)
        do {
            _ = try Configuration(environment: ["EVENTS_DOORBELL": "on"])
            Issue.record("EVENTS_DOORBELL=on was taken")
        } catch {
            #expect(error.variable == "EVENTS_DOORBELL")
        }
    }
}

extension TestServer {
    /// A second server on the same database, as a deployment runs several: its own port, pools
    /// and listener (no metrics listener; it leaves the published asset URLs alone). Stop it.
    static func another() throws -> Application {
        var configuration = try running().application.configuration
        configuration.port = 0
        configuration.metricsPort = nil
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        try application.start(publishAssets: false)
        return application
    }
}

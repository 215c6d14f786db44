// Helpers of the client journeys: clients of the journey server, accounts, and events collected
// from `events()` with a deadline.
import FocusIslandClient
import Foundation
import Testing

/// A client of the journey server (through `proxy` when given): strict decoding, so an answer
/// with a member its model lacks fails the test; short backoffs.
func journeyClient(_ proxy: TCPProxy? = nil, token: String? = nil, attempts: Int = 4) throws -> FocusIslandClient {
    try FocusIslandClient(
        baseURL: try proxy?.url ?? JourneyServer.baseURL(), token: token,
        retryPolicy: RetryPolicy(maxAttempts: attempts, baseDelay: 0.05, maxDelay: 0.5), strictDecoding: true)
}

func uniqueEmail(_ name: String) -> String { "\(name)-\(UInt64.random(in: 0 ... .max))@example.com" }

let journeyPassword = "correct horse battery"

/// A new account, signed in on a client of its own, its email verified and counted as made a
/// year ago (app.users.created_at, as a DBA would backdate it): an established account, whose
/// sessions may start at any time a journey builds (none starts before its account).
func newAccount(_ name: String, _ proxy: TCPProxy? = nil) async throws -> (client: FocusIslandClient, user: Profile, email: String) {
    let client = try journeyClient(proxy)
    let email = uniqueEmail(name)
    try await client.register(email: email, password: journeyPassword, displayName: name)
    // Friend requests find verified emails only: confirm the code mailed at sign-up, as the app would.
    let code =
        try JourneyServer.row(
            "select substring(body from 'Your code is ([0-9]{8})') from app.outgoing_mail where recipient = $1 order by id desc limit 1",
            [email]
        ).first ?? nil
    let verified = try await client.meEmailVerificationConfirm(EmailVerifyBody(code: code ?? ""))
    _ = try JourneyServer.row("update app.users set created_at = now() - interval '1 year' where email = $1", [email])
    return (client, verified, email)
}

/// Collects what an `events()` sequence yields, so a test can wait for one event with a deadline.
actor EventCollector {
    private(set) var events: [Event] = []
    private(set) var failure: (any Error)?
    private var task: Task<Void, Never>?

    init(_ stream: EventSequence) {
        task = nil
        Task { await self.start(stream) }
    }

    private func start(_ stream: EventSequence) {
        task = Task {
            do {
                for try await event in stream { self.add(event) }
            } catch {
                self.fail(error)
            }
        }
    }

    private func add(_ event: Event) { events.append(event) }
    private func fail(_ error: any Error) { failure = error }

    func stop() { task?.cancel() }

    /// The first event that matches, waiting up to `timeout` seconds for it.
    func first(timeout: TimeInterval = 15, where matches: @Sendable (Event) -> Bool) async throws -> Event {
        let deadline = Date().addingTimeInterval(timeout)  // a test's own patience, not a day that matters
        while Date() < deadline {
            if let event = events.first(where: matches) { return event }
            if let failure { throw failure }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw JourneySetupError(description: "no such event within \(timeout) s; had \(events.map(\.type))")
    }
}

/// Waits until `condition` holds (a proxy saw a stream open, say), up to `timeout` seconds.
func eventually(timeout: TimeInterval = 10, _ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw JourneySetupError(description: "a condition did not hold within \(timeout) s") }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
}

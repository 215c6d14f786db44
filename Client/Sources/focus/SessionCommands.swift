// SessionCommands: start, finish and rate a live focus session. Start remembers the session's
// id in the config directory; finish (now, or at --ended-at) takes the running session from the server
// (GET /focus-sessions/current, so one started on the phone finishes here too), and rate the
// last session this config directory started or finished.

import FocusIslandClient
import Foundation

enum SessionCommands {
    static func start(_ context: Context, minutes: Int) async throws {
        let started = try await context.signedIn().focusSessionsStart(SessionStartBody(plannedMinutes: minutes))
        try context.config.write(Files.session, text: started.session.id.uuidString.lowercased())
        context.output.result(started, "Session started: \(minutes) minutes. Run focus finish when you are done.")
    }

    static func finish(_ context: Context) async throws {
        let client = try context.signedIn()
        guard case .ok(let current) = try await client.focusSessionsCurrentGet() else {
            throw CLIError(.refused, "No session is running: start one with focus start MINUTES.")
        }
        // --ended-at: when it really ended (a session left running); the server checks the time.
        let body = context.invocation.endedAt.map { SessionFinishBody(endedAt: Time(rawValue: $0)) }
        let ended = try await client.focusSessionsFinish(id: current.session.id, body)
        try context.config.write(Files.session, text: ended.session.id.uuidString.lowercased())
        let minutes = ended.session.minutes ?? 0
        context.output.result(
            ended,
            "Session finished: \(minutes) minute\(minutes == 1 ? "" : "s") focused, \(ended.session.coinsEarned) coins earned. Balance: \(ended.balance) coins."
        )
    }

    static func rate(_ context: Context, _ rating: String) async throws {
        guard let value = Rating.allCases.first(where: { $0.rawValue == rating }) else {
            throw CLIError.usage("usage: focus rate good|fine|bad")
        }
        guard let text = context.config.read(Files.session), let id = UUID(uuidString: text) else {
            throw CLIError(.refused, "No session to rate: start one with focus start MINUTES, then focus finish.")
        }
        let rated = try await context.signedIn().focusSessionsRate(id: id, RatingBody(rating: value))
        var sentence = "Rated \(rating)."
        if let tip = rated.tip {
            sentence += "\nTip: \(tip.title)\n  \(tip.content)"
        }
        context.output.result(rated, sentence)
    }
}

// SessionCommands: start, finish and rate a live focus session; the history of sessions in
// pages; stats per day and by tag. Start remembers the session's id in the config directory;
// finish (now, or at --ended-at) takes the running session from the server
// (GET /focus-sessions/current, so one started on the phone finishes here too), and rate the
// last session this config directory started or finished.

import FocusIslandClient
import Foundation

enum SessionCommands {
    static func start(_ context: Context, minutes: Int, tag: String?) async throws {
        let started = try await context.signedIn().focusSessionsStart(SessionStartBody(plannedMinutes: minutes, tag: tag))
        try context.config.write(Files.session, text: started.session.id.uuidString.lowercased())
        let tagged = started.session.tag.map { " (\($0))" } ?? ""
        context.output.result(started, "Session started: \(minutes) minutes\(tagged). Run focus finish when you are done.")
    }

    static func history(_ context: Context, _ page: Command.Page) async throws {
        let list = try await context.signedIn().focusSessionsList(limit: page.limit, cursor: page.cursor)
        guard !context.output.json else { return context.output.object(list) }
        Output.write(list.sessions.isEmpty ? "No sessions in the last 30 days." : "Sessions, newest first:")
        for session in list.sessions {
            let minutes = session.minutes.map { "\($0) minute\($0 == 1 ? "" : "s")" } ?? "running"
            let tag = session.tag.map { ", \($0)" } ?? ""
            Output.write("  \(session.startedAt.rawValue): \(minutes), \(session.coinsEarned) coins\(tag)")
        }
        Output.write("In the last 30 days: \(list.totalMinutes) minutes, \(list.totalCoinsEarned) coins.")
        if let cursor = list.nextCursor {
            Output.write("More: focus history --limit \(page.limit ?? list.sessions.count) --cursor \(cursor)")
        }
    }

    static func daily(_ context: Context, from: String?, to: String?) async throws {
        let stats = try await context.signedIn().meStatsDailyGet(from: from, to: to)
        guard !context.output.json else { return context.output.object(stats) }
        Output.write("Minutes per day (\(stats.timeZone)), \(stats.from) to \(stats.to):")
        for day in stats.days {
            Output.write("  \(day.date)  \(day.minutes) minutes, \(day.sessions) session\(day.sessions == 1 ? "" : "s")")
        }
        Output.write("In all: \(stats.totalMinutes) minutes, \(stats.totalSessions) sessions.")
    }

    static func tags(_ context: Context, from: String?, to: String?) async throws {
        let stats = try await context.signedIn().meStatsTagsGet(from: from, to: to)
        guard !context.output.json else { return context.output.object(stats) }
        Output.write(stats.tags.isEmpty ? "No finished sessions yet." : "Minutes by tag:")
        for row in stats.tags {
            Output.write("  \(row.tag ?? "(no tag)"): \(row.minutes) minutes, \(row.sessions) session\(row.sessions == 1 ? "" : "s")")
        }
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
                + AchievementCommands.unlocked(ended.achievementsUnlocked)
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

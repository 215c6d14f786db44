// SessionCommands: start, finish and rate a live focus session; the history of sessions in
// pages; stats per day and by tag. Start remembers the session's id in the config directory;
// finish (now, or at --ended-at) takes the running session from the server
// (GET /focus-sessions/current, so one started on the phone finishes here too), and rate the
// last session this config directory started or finished.

import FocusIslandClient
import Foundation

enum SessionCommands {
    static let commands = [
        Command(
            ["start"], "[MINUTES] [--tag TAG]", "start a live session (default 25, 1 to 180), with a label", options: ["tag"],
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(0...1)
                return Plan(minutes: try Arguments.minutes(words.first ?? "25"), tag: arguments.options["tag"])
            }, run: start),
        Command(
            ["finish"], "", "finish the running session; coins for the minutes focused",
            more: [HelpRow("  [--ended-at TIME]", "it really ended then (RFC 3339, 2026-12-01T10:15:00Z), not now")],
            options: ["ended-at"],
            parse: { arguments throws(CLIError) in
                try arguments.count(0...0)
                return arguments.options["ended-at"]
            }, run: finish),
        Command(
            ["rate"], Rating.allCases.map(\.rawValue).joined(separator: "|"), "rate the last session; prints a tip for it",
            parse: { arguments throws(CLIError) in
                guard let rating = Rating.allCases.first(where: { [$0.rawValue] == arguments.words }) else { throw arguments.wrong }
                return rating
            }, run: rate),
        Command(
            ["history"], "[--limit N] [--cursor CURSOR]", "your sessions of the last 30 days, newest first, a page at a time",
            options: ["limit", "cursor"],
            parse: { arguments throws(CLIError) in
                try arguments.count(0...0)
                return try arguments.page()
            }, run: history),
        Command(
            ["stats", "daily"], "[--from DAY] [--to DAY]", "minutes and sessions per day of your time zone (default: 7 days)",
            options: ["from", "to"], parse: days, run: daily),
        Command(
            ["stats", "tags"], "[--from DAY] [--to DAY]", "minutes and sessions by tag (default: all)", options: ["from", "to"],
            parse: days, run: tags),
    ]

    /// What `focus start` was given: the planned minutes and `--tag`.
    struct Plan: Equatable, Sendable {
        var minutes: Int
        var tag: String?
    }

    /// `--from` and `--to` of the stats: the first and last day (YYYY-MM-DD), the server's default when nil.
    struct Days: Equatable, Sendable {
        var from: String?
        var to: String?
    }

    private static func days(_ arguments: Arguments) throws(CLIError) -> Days {
        let days = Days(from: try arguments.day("from"), to: try arguments.day("to"))
        try arguments.count(0...0)
        return days
    }

    static func start(_ context: Context, _ plan: Plan) async throws {
        let minutes = plan.minutes
        let started = try await context.signedIn().focusSessionsStart(SessionStartBody(plannedMinutes: minutes, tag: plan.tag))
        try context.config.write(Files.session, text: started.session.id.uuidString.lowercased())
        let tagged = started.session.tag.map { " (\($0))" } ?? ""
        context.output.result(started, "Session started: \(minutes) minutes\(tagged). Run focus finish when you are done.")
    }

    static func history(_ context: Context, _ page: Page) async throws {
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

    static func daily(_ context: Context, _ days: Days) async throws {
        let stats = try await context.signedIn().meStatsDailyGet(from: days.from, to: days.to)
        guard !context.output.json else { return context.output.object(stats) }
        Output.write("Minutes per day (\(stats.timeZone)), \(stats.from) to \(stats.to):")
        for day in stats.days {
            Output.write("  \(day.date)  \(day.minutes) minutes, \(day.sessions) session\(day.sessions == 1 ? "" : "s")")
        }
        Output.write("In all: \(stats.totalMinutes) minutes, \(stats.totalSessions) sessions.")
    }

    static func tags(_ context: Context, _ days: Days) async throws {
        let stats = try await context.signedIn().meStatsTagsGet(from: days.from, to: days.to)
        guard !context.output.json else { return context.output.object(stats) }
        Output.write(stats.tags.isEmpty ? "No finished sessions yet." : "Minutes by tag:")
        for row in stats.tags {
            Output.write("  \(row.tag ?? "(no tag)"): \(row.minutes) minutes, \(row.sessions) session\(row.sessions == 1 ? "" : "s")")
        }
    }

    /// Now, or at `endedAt` (--ended-at: when it really ended, for a session left running).
    static func finish(_ context: Context, endedAt: String?) async throws {
        let client = try context.signedIn()
        guard case .ok(let current) = try await client.focusSessionsCurrentGet() else {
            throw CLIError(.refused, "No session is running: start one with focus start MINUTES.")
        }
        // The server checks the time.
        let body = endedAt.map { SessionFinishBody(endedAt: Time(rawValue: $0)) }
        let ended = try await client.focusSessionsFinish(id: current.session.id, body)
        try context.config.write(Files.session, text: ended.session.id.uuidString.lowercased())
        let minutes = ended.session.minutes ?? 0
        context.output.result(
            ended,
            "Session finished: \(minutes) minute\(minutes == 1 ? "" : "s") focused, \(ended.session.coinsEarned) coins earned. Balance: \(ended.balance) coins."
                + AchievementCommands.unlocked(ended.achievementsUnlocked)
        )
    }

    static func rate(_ context: Context, _ rating: Rating) async throws {
        guard let text = context.config.read(Files.session), let id = UUID(uuidString: text) else {
            throw CLIError(.refused, "No session to rate: start one with focus start MINUTES, then focus finish.")
        }
        let rated = try await context.signedIn().focusSessionsRate(id: id, RatingBody(rating: rating))
        var sentence = "Rated \(rating.rawValue)."
        if let tip = rated.tip {
            sentence += "\nTip: \(tip.title)\n  \(tip.content)"
        }
        context.output.result(rated, sentence)
    }
}

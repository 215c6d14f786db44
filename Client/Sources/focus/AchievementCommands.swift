// AchievementCommands: `focus achievements` lists yours, each with its progress (current of
// target) or the day it unlocked; `focus achievements FRIEND` (display name or id) lists what
// a friend unlocked. `focus finish`, `focus buy` and `focus friends accept` print what their
// answer says they unlocked (`unlocked` below).

import FocusIslandClient
import Foundation

enum AchievementCommands {
    static let commands = [
        Command(
            ["achievements"], "", "yours: unlocked ones and the progress of the others",
            more: [HelpRow("focus achievements FRIEND", "what a friend (name or id) unlocked")],
            parse: { arguments throws(CLIError) in arguments.text }, run: show)
    ]

    /// Yours, or what the friend `name` (display name or id) unlocked.
    static func show(_ context: Context, friend name: String?) async throws {
        let client = try context.signedIn()
        guard let name else {
            let list = try await client.meAchievementsList()
            context.output.result(list, list.achievements.map(describe).joined(separator: "\n"))
            return
        }
        let friends = try await client.friendsList().friends
        let friend = try Lookup.one(name, in: friends, what: "friend", ids: { [$0.id] }, name: { $0.displayName })
        let theirs = try await client.usersAchievementsList(id: friend.id)
        let lines = theirs.achievements.map { "\($0.name): unlocked \(day($0.unlockedAt))" }
        context.output.result(
            theirs, lines.isEmpty ? "\(friend.displayName) has unlocked no achievement yet." : lines.joined(separator: "\n"))
    }

    /// One line: "[x] First focus: unlocked 2026-12-01 (10 coins)" or "[ ] Ten hours: 45 of 600 (50 coins)".
    static func describe(_ achievement: AchievementProgress) -> String {
        let state = achievement.unlockedAt.map { "unlocked \(day($0))" } ?? "\(achievement.current) of \(achievement.target)"
        return "[\(achievement.unlockedAt == nil ? " " : "x")] \(achievement.name): \(state) (\(achievement.rewardCoins) coins)"
    }

    /// The sentences an answer's `achievements_unlocked` adds after the command's own ("" when none).
    static func unlocked(_ achievements: [Achievement]?) -> String {
        (achievements ?? []).map { "\nAchievement unlocked: \($0.name) (+\($0.rewardCoins) coins)." }.joined()
    }

    private static func day(_ time: Time) -> String { String(time.rawValue.prefix(10)) }
}

// StreakCommands: `focus streak` shows the streak (GET /me/stats, which also applies the
// freezes due) and `focus streak freeze` buys a freeze (POST /me/streak-freezes).

import FocusIslandClient
import Foundation

enum StreakCommands {
    static let commands = [
        Command(["streak"], "your current and longest streak, freezes held, days they covered", run: show),
        Command(["streak", "freeze"], "buy a streak freeze: it covers one missed day (two held at most)", run: freeze),
    ]

    static func show(_ context: Context) async throws {
        let stats = try await context.signedIn().meStatsGet()
        let days = stats.currentStreakDays
        var sentence = "Streak: \(days) day\(days == 1 ? "" : "s") (longest \(stats.longestStreakDays))."
        if !stats.streakFrozenDays.isEmpty {
            sentence += " Kept by freezes on \(stats.streakFrozenDays.joined(separator: ", "))."
        }
        let held = stats.streakFreezesHeld
        sentence += "\nFreezes held: \(held) of 2 (\(stats.streakFreezesUsed) used in all)."
        context.output.result(stats, sentence)
    }

    static func freeze(_ context: Context) async throws {
        let purchase = try await context.signedIn().meStreakFreezesCreate()
        context.output.result(
            purchase,
            "Bought a streak freeze for \(purchase.price) coins: \(purchase.freezesHeld) of \(purchase.freezesMax) held. "
                + "Balance: \(purchase.balance) coins.")
    }
}

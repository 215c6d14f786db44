// ConfigCommands: `focus config`, what the server tells every app before anything else: the
// app versions it still serves per platform, maintenance, feature flags and the economy.

import FocusIslandClient
import Foundation

enum ConfigCommands {
    static let commands = [Command(["config"], "app versions served, maintenance, feature flags, the economy", run: show)]

    static func show(_ context: Context) async throws {
        let config = try await context.anonymous().configGet()
        context.output.result(config, describe(config))
    }

    static func describe(_ config: Config) -> String {
        var lines = ["API \(config.apiVersion)"]
        if case .object(let platforms) = config.platforms {
            for (name, value) in platforms.sorted(by: { $0.key < $1.key }) {
                guard case .object(let row) = value, case .string(let minimum)? = row["min_version"],
                    case .string(let latest)? = row["latest_version"], case .string(let store)? = row["store_url"]
                else { continue }
                lines.append("\(name): at least \(minimum), latest \(latest) (\(store))")
            }
        }
        lines.append(
            config.maintenance.active ? "Maintenance: \(config.maintenance.message)" : "Maintenance: off")
        if case .object(let flags) = config.features, !flags.isEmpty {
            let on = flags.filter { $0.value == .bool(true) }.keys.sorted()
            lines.append("Features on: \(on.isEmpty ? "none" : on.joined(separator: ", "))")
        }
        let economy = config.economy
        lines.append(
            "Coins: \(economy.coinsPerMinute.formatted()) a minute from \(economy.minMinutesToEarn) minutes; sessions up to "
                + "\(economy.maxSessionMinutes) minutes; offline at most \(economy.offlineDailyCoinCap) coins a day, "
                + "\(economy.offlineMaxAgeDays) days back")
        return lines.joined(separator: "\n")
    }
}

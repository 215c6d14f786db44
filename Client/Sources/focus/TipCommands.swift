// TipCommands: `focus tips sync` keeps the mindfulness tips in the config directory (tips.json)
// up to date: it sends the ids it holds, adds the tips the server says are missing and drops
// the ids it says were retired, as the app does.

import FocusIslandClient
import Foundation

enum TipCommands {
    static let commands = [Command(["tips", "sync"], "fetch new mindfulness tips, drop retired ones", run: sync)]

    static func sync(_ context: Context) async throws {
        var known: [Tip] = []
        if let data = context.config.data(Files.tips) {
            do {
                known = try JSONDecoder().decode([Tip].self, from: data)
            } catch {
                throw CLIError(.local, "\(context.config.path)/\(Files.tips) is not a list of tips: remove it to sync from scratch")
            }
        }
        let body = MindfulnessTipsSyncBody.knownIdsBody(KnownIdsBody(knownIds: known.map(\.id)))
        guard case .tipSync(let sync) = try await context.anonymous().mindfulnessTipsSync(body) else {
            throw CLIError(.local, "the server answered the tip sync in the original app's shape")
        }
        let removed = Set(sync.removed)
        known = known.filter { !removed.contains($0.id) } + sync.missing
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try context.config.write(Files.tips, try encoder.encode(known))
        let count = sync.missing.count
        var sentence = "\(count) new tip\(count == 1 ? "" : "s"), \(sync.removed.count) removed; \(known.count) tips known."
        for tip in sync.missing.prefix(5) {
            sentence += "\n  \(tip.title) (\(tip.ratingLevel.rawValue))"
        }
        if count > 5 { sentence += "\n  and \(count - 5) more" }
        context.output.result(sync, sentence)
    }
}

// ShopCommands: the catalog, buying an item and choosing what to show. Items are named as
// people see them ("potted fern", any case) or by id; the catalog resolves a name to its id.

import FocusIslandClient
import Foundation

enum ShopCommands {
    static let commands = [
        Command(["shop"], "the catalog, with what you own", run: shop),
        Command(
            ["buy"], "NAME|ID", "buy an item by name (any case, or its start: \"mochi\") or id",
            parse: { arguments throws(CLIError) in try arguments.requiredText() }, run: buy),
        Command(
            ["select"], ItemKind.allCases.map(\.rawValue).joined(separator: "|") + " NAME|ID", "show an item you own",
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(atLeast: 2)
                guard let kind = ItemKind.allCases.first(where: { $0.rawValue == words[0] }) else { throw arguments.wrong }
                return Choice(kind: kind, item: words.dropFirst().joined(separator: " "))
            }, run: select),
    ]

    /// What `focus select` shows: a kind of item this client knows, and the item's name or id.
    struct Choice: Equatable, Sendable {
        var kind: ItemKind
        var item: String
    }

    static func shop(_ context: Context) async throws {
        let catalog = try await context.anonymous().shopItemsList()
        // Signed in: mark what is owned. Not signed in: the catalog alone.
        var owned: Set<UUID> = []
        if context.config.read(Files.token) != nil {
            owned = Set(try await context.signedIn().meItemsList().items.map(\.item.id))
        }
        guard !context.output.json else { return context.output.object(catalog) }
        for (title, items) in [("Pets", catalog.pets), ("Sounds", catalog.sounds), ("Furniture", catalog.furniture)] {
            Output.write("\(title):")
            for item in items {
                let price = owned.contains(item.id) ? "owned" : "\(item.price) coins"
                Output.write(
                    "  \(item.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(price.padding(toLength: 10, withPad: " ", startingAt: 0)) \(item.description)\(offerNote(item))"
                )
            }
        }
    }

    /// What the catalog says beside an item's price now: a running sale (the regular price and
    /// the sale's end) and a seasonal item's last minute in the shop, to the minute in UTC.
    static func offerNote(_ item: Item) -> String {
        var notes: [String] = []
        if let end = item.saleEndsAt, let regular = item.regularPrice {
            notes.append("sale: \(regular) coins after \(minute(end))")
        }
        if let until = item.availableUntil {
            notes.append("in the shop until \(minute(until))")
        }
        return notes.isEmpty ? "" : " [" + notes.joined(separator: "; ") + "]"
    }

    /// "2026-12-31T23:59:00.000000Z" as "2026-12-31 23:59 UTC".
    private static func minute(_ time: Time) -> String {
        String(time.rawValue.prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    static func buy(_ context: Context, _ argument: String) async throws {
        let client = try context.signedIn()
        let id = try await itemId(argument, kind: nil, client)
        let response = try await client.shopPurchasesCreate(ItemChoiceBody(itemId: id))
        let purchase = response.value
        switch response {
        case .created:
            context.output.result(
                purchase,
                "Bought \(purchase.item.name) for \(purchase.item.price) coins. Balance: \(purchase.balance) coins."
                    + AchievementCommands.unlocked(purchase.achievementsUnlocked))
        case .ok:
            context.output.result(purchase, "You already own \(purchase.item.name): nothing charged. Balance: \(purchase.balance) coins.")
        }
    }

    static func select(_ context: Context, _ choice: Choice) async throws {
        let client = try context.signedIn()
        let id = try await itemId(choice.item, kind: choice.kind, client)
        let profile = try await client.meSelectedUpdate(kind: choice.kind, ItemChoiceBody(itemId: id))
        let shown: Item?
        switch choice.kind {
        case .pet: shown = profile.selected.pet
        case .sound: shown = profile.selected.sound
        case .furniture: shown = profile.selected.furniture
        case .unknown: shown = nil  // the parse takes only the kinds this client knows (allCases)
        }
        context.output.result(profile, "Your \(choice.kind.rawValue) is now \(shown?.name ?? choice.item).")
    }

    /// The id of the item `argument` names (of `kind`, if given). An id is passed through as it
    /// is, so the server says whether it exists; a name must be in the catalog.
    static func itemId(_ argument: String, kind: ItemKind?, _ client: FocusIslandClient) async throws -> UUID {
        if let id = UUID(uuidString: argument) { return id }
        let catalog = try await client.shopItemsList()
        let items = (catalog.pets + catalog.sounds + catalog.furniture).filter { kind == nil || $0.kind == kind }
        return try Lookup.one(argument, in: items, what: kind.map { "\($0.rawValue)" } ?? "item", ids: { [$0.id] }, name: \.name).id
    }
}

// GiftCommands: gifts between friends. `focus gift send FRIEND COINS` sends coins, `focus gift
// send FRIEND ITEM` buys a shop item for the friend (both paid at once and refunded if the gift
// is declined or expires); `focus gift` lists what waits for you and what you sent; `focus gift
// accept|decline [ID]` answers one (no id: the only one waiting); an accept prints what it
// unlocked, as the other writes do.

import FocusIslandClient
import Foundation

enum GiftCommands {
    static let commands = [
        Command(
            ["gift", "send"], "FRIEND COINS|ITEM", "send a friend coins, or buy them a shop item (name or id)",
            parse: { arguments throws(CLIError) in
                let words = try arguments.count(atLeast: 2)
                let what = words.dropFirst().joined(separator: " ")
                guard what.allSatisfy(\.isNumber) else { return Present(friend: words[0], item: what) }
                guard let coins = Int(what), coins >= 1 else { throw .usage("coins must be a whole number of 1 or more, not \(what)") }
                return Present(friend: words[0], coins: coins)
            }, run: send),
        Command(["gift"], "gifts waiting for you, and the ones you sent", run: list),
        Command(
            ["gift", "accept"], "[ID]", "take a gift (no id: the only one waiting)",
            parse: { arguments throws(CLIError) in try arguments.count(0...1).first }, run: { try await answer($0, id: $1, accept: true) }),
        Command(
            ["gift", "decline"], "[ID]", "refuse a gift: its sender gets the coins back",
            parse: { arguments throws(CLIError) in try arguments.count(0...1).first }, run: { try await answer($0, id: $1, accept: false) }),
    ]

    /// What `focus gift send` was given: the friend (display name or id) and coins, or an item
    /// (name or id).
    struct Present: Equatable, Sendable {
        var friend: String
        var coins: Int?
        var item: String?
    }

    static func send(_ context: Context, _ present: Present) async throws {
        let client = try context.signedIn()
        let friend = try Lookup.one(
            present.friend, in: try await client.friendsList().friends, what: "friend", ids: { [$0.id] }, name: { $0.displayName })
        var itemId: UUID?
        if let item = present.item { itemId = try await ShopCommands.itemId(item, kind: nil, client) }
        let sent = try await client.giftsCreate(GiftBody(to: friend.id, coins: present.coins, itemId: itemId))
        context.output.result(
            sent,
            "Sent \(friend.displayName) \(what(sent.gift)) (id \(short(sent.gift.id))). Balance: \(sent.balance) coins; "
                + "refunded if they decline or do not answer by \(day(sent.gift.expiresAt)).")
    }

    static func list(_ context: Context) async throws {
        let client = try context.signedIn()
        let received = try await client.giftsReceivedList()
        let sent = try await client.giftsSentList(limit: 10)
        guard !context.output.json else { return context.output.object(GiftLists(received: received.gifts, sent: sent.gifts)) }
        Output.write(received.gifts.isEmpty ? "No gifts waiting for you." : "Waiting for you (focus gift accept|decline ID):")
        for gift in received.gifts {
            Output.write("  \(short(gift.id))  \(what(gift)) from \(gift.from.displayName), until \(day(gift.expiresAt))")
        }
        if !sent.gifts.isEmpty { Output.write("You sent:") }
        for gift in sent.gifts {
            Output.write("  \(short(gift.id))  \(what(gift)) to \(gift.to.displayName): \(gift.status.rawValue)")
        }
    }

    static func answer(_ context: Context, id argument: String?, accept: Bool) async throws {
        let client = try context.signedIn()
        let waiting = try await client.giftsReceivedList(limit: 200).gifts
        let id: UUID
        if let argument, let full = UUID(uuidString: argument) {
            id = full
        } else if let argument {
            // The short id `focus gift` prints: the start of one waiting gift's id.
            let matches = waiting.filter { $0.id.uuidString.lowercased().hasPrefix(argument.lowercased()) }
            guard matches.count == 1 else { throw CLIError(.refused, "No single gift waiting for you starts with \(argument).") }
            id = matches[0].id
        } else {
            id = try Lookup.only(waiting, what: "gift", name: { "\(short($0.id)) from \($0.from.displayName)" }).id
        }
        if accept {
            let accepted = try await client.giftsAccept(id: id)
            let text =
                accepted.gift.status == .refunded
                ? "You own \(accepted.gift.item?.name ?? "it") already: \(accepted.gift.from.displayName) got the coins back."
                : "Accepted \(what(accepted.gift)) from \(accepted.gift.from.displayName). Balance: \(accepted.balance) coins."
            context.output.result(accepted, text + AchievementCommands.unlocked(accepted.achievementsUnlocked))
        } else {
            let declined = try await client.giftsDecline(id: id)
            context.output.result(
                declined, "Declined \(what(declined.gift)) from \(declined.gift.from.displayName): they got the coins back.")
        }
    }

    /// "50 coins" or the item's name.
    static func what(_ gift: Gift) -> String {
        if let item = gift.item { return item.name }
        return "\(gift.coins ?? gift.paid) coins"
    }

    static func short(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    static func day(_ time: Time) -> String { String(time.rawValue.prefix(10)) }

    /// The two lists, for --json.
    struct GiftLists: Encodable {
        var received: [Gift]
        var sent: [Gift]
    }
}

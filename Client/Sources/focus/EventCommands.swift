// EventCommands: `focus events` prints what happened since the last `focus events` (the first
// time: every event the server still keeps), then remembers where it stopped (the `events` file);
// with --follow it goes on printing events as they happen (the library's events(): a stream
// that reconnects, or long-polls), until Ctrl-C. It says "Following ..." on stderr once it has
// caught up, and never misses an event committed after that: the stream starts at the cursor.

import FocusIslandClient
import Foundation

enum EventCommands {
    static let commands = [
        Command(
            ["events"], "", "what happened since the last `focus events`",
            more: [HelpRow("focus events --follow", "stay connected and print events as they happen")], options: ["follow"],
            parse: { arguments throws(CLIError) in
                try arguments.count(0...0)
                return arguments.follow
            }, run: events)
    ]

    /// With `follow`, goes on printing events as they come.
    static func events(_ context: Context, follow: Bool) async throws {
        let client = try context.signedIn()
        var cursor = context.config.read(Files.events).flatMap(Int.init) ?? 0
        let describer = EventDescriber(client: client)
        // Catch up in pages, then (with --follow) stream from where the pages ended.
        var caughtUp = 0
        while true {
            let page = try await client.eventsList(after: cursor, limit: 1000)
            for event in page.events {
                await show(event, context, describer)
            }
            caughtUp += page.events.count
            cursor = page.next
            try context.config.write(Files.events, text: String(cursor))
            if page.events.count < 1000 { break }
        }
        if caughtUp == 0 && !follow { context.output.say("No new events.") }
        guard follow else { return }
        Output.error("Following events (Ctrl-C to stop).")
        for try await event in client.events(after: cursor) {
            await show(event, context, describer)
            try context.config.write(Files.events, text: String(event.id))
        }
    }

    private static func show(_ event: Event, _ context: Context, _ describer: EventDescriber) async {
        if context.output.json { return context.output.object(event) }
        let time = String(event.createdAt.rawValue.dropFirst(11).prefix(8))
        Output.write("\(time)  \(event.type): \(await describer.sentence(event))")
    }
}

/// A sentence for an event. Events carry ids only (data: {request_id, user_id}, {balance}, ...);
/// the names come from the friend list and the pending requests, read when an event needs them.
struct EventDescriber {
    let client: FocusIslandClient

    func sentence(_ event: Event) async -> String {
        guard case .object(let data) = event.data else { return "" }
        switch event.type {
        case "friend_request.received":
            let name = await requester(data["request_id"])
            return "\(name ?? "someone") asked to be your friend (focus friends accept\(name.map { " " + $0 } ?? ""))."
        case "friend_request.accepted":
            return "\(await friend(data["user_id"]) ?? "someone") accepted your request: you are friends now."
        case "friend_request.ended":
            return "a friend request was declined or withdrawn."
        case "friend.removed":
            return "someone ended your friendship."
        case "friend.updated":
            return "\(await friend(data["user_id"]) ?? "a friend") changed their profile or focused."
        case "balance.changed":
            return "your balance is \(number(data["balance"]).map(String.init) ?? "?") coins."
        case "catalog.changed":
            return "the shop changed (focus shop)."
        case "tips.changed":
            return "new mindfulness tips (focus tips sync)."
        case "session.started":
            return "you started a session on another device."
        case "session.finished":
            return "you finished a session on another device."
        case "session.abandoned":
            return "you abandoned a session on another device."
        case "selection.changed", "item.acquired":
            return "your items changed on another device (focus me)."
        case "profile.changed", "settings.changed":
            return "your profile or settings changed on another device (focus me)."
        case "block.added", "block.removed":
            return "your blocked list changed on another device."
        case "config.changed":
            return "the server's settings changed (focus config)."
        case "room.invited":
            let code = text(data["code"]) ?? "?"
            return "\(await friend(data["user_id"]) ?? "a friend") invited you to a focus room (focus room join \(code))."
        case "room.joined":
            return "\(await friend(data["user_id"]) ?? "someone") joined your room."
        case "room.left":
            // Since 2026-12-06 a member a block parted from the room hears their own leave.
            if let id = uuid(data["user_id"]), let me = try? await client.meGet(), me.id == id {
                return "you are no longer in the room (focus room)."
            }
            return "\(await friend(data["user_id"]) ?? "someone") left your room."
        case "room.started":
            return "your room started: your session runs now (focus finish at the end)."
        case "room.finished":
            return "\(await friend(data["user_id"]) ?? "someone") finished the room's plan."
        case "room.gave_up":
            let vanished = text(data["outcome"]) == "vanished"
            return "\(await friend(data["user_id"]) ?? "someone") \(vanished ? "vanished" : "gave up"): the room failed, no bonus."
        case "room.ended":
            let bonus = number(data["bonus"]) ?? 0
            return "your room ended: \(text(data["status"]) ?? "?")\(bonus > 0 ? ", bonus \(bonus) coins" : "")."
        case "achievement.unlocked":
            let who = await friend(data["user_id"]) ?? "you"
            return "\(who) unlocked the achievement \(text(data["code"]) ?? "?")."
        case "gift.received":
            let what = number(data["coins"]).map { "\($0) coins" } ?? "an item"
            return "\(await friend(data["user_id"]) ?? "a friend") sent you \(what) (focus gift accept or decline)."
        case "gift.accepted":
            return "\(await friend(data["user_id"]) ?? "a friend") accepted your gift."
        case "gift.declined":
            let refund = number(data["refund"]) ?? 0
            return "your gift to \(await friend(data["user_id"]) ?? "a friend") came back (\(text(data["status"]) ?? "declined")): "
                + "\(refund) coins refunded."
        case "streak.frozen":
            let held = number(data["freezes_held"]).map(String.init) ?? "?"
            return "a streak freeze covered \(text(data["day"]) ?? "a missed day"): your streak is kept (\(held) held, focus streak)."
        case "resync":
            return "some events are too old to list: read focus me and focus friends again."
        default:
            return JSONText.line(event.data).flatMap { String(data: $0, encoding: .utf8) } ?? ""
        }
    }

    private func requester(_ id: JSONValue?) async -> String? {
        guard let id = uuid(id), let requests = try? await client.friendRequestsList() else { return nil }
        return requests.incoming.first { $0.id == id }?.from.displayName
    }

    private func friend(_ id: JSONValue?) async -> String? {
        guard let id = uuid(id), let friends = try? await client.friendsList() else { return nil }
        return friends.friends.first { $0.id == id }?.displayName
    }

    private func uuid(_ value: JSONValue?) -> UUID? {
        guard case .string(let text) = value else { return nil }
        return UUID(uuidString: text)
    }

    private func text(_ value: JSONValue?) -> String? {
        guard case .string(let text) = value else { return nil }
        return text
    }

    private func number(_ value: JSONValue?) -> Int? {
        guard case .number(let number) = value else { return nil }
        return Int(number)
    }
}

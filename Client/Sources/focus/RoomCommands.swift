// RoomCommands: focus rooms. `focus room open` opens one (inviting friends named by display
// name or id) and prints the code friends join with; `focus room join CODE`; `focus room start`
// starts the room this config directory opened or joined last (its id in the `room` file), and
// every member's live session starts at once: `focus finish` ends this one's as any other.
// `focus room` shows that room, its members and their outcomes.

import FocusIslandClient
import Foundation

enum RoomCommands {
    static let commands = [
        Command(
            ["room", "open"], "[MINUTES] [FRIEND...]", "open a room (default 25 minutes), inviting friends by name or id",
            parse: { arguments throws(CLIError) in
                var invite = arguments.words
                var minutes = 25
                if let first = invite.first, first.allSatisfy(\.isNumber) {
                    minutes = try Arguments.minutes(first)
                    invite.removeFirst()
                }
                return Plan(minutes: minutes, invite: invite)
            }, run: open),
        Command(
            ["room", "join"], "CODE", "join a friend's room by its code",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: join),
        Command(["room", "start"], "start the room you opened: every member's session starts now", run: start),
        Command(["room"], "the room you opened or joined last, its members and outcomes", run: show),
    ]

    /// What `focus room open` was given: the planned minutes and the friends to invite (display
    /// names or ids).
    struct Plan: Equatable, Sendable {
        var minutes: Int
        var invite: [String]
    }

    static func open(_ context: Context, _ plan: Plan) async throws {
        let client = try context.signedIn()
        let minutes = plan.minutes
        var invite: [UUID] = []
        if !plan.invite.isEmpty {
            let friends = try await client.friendsList().friends
            for name in plan.invite {
                invite.append(try Lookup.one(name, in: friends, what: "friend", ids: { [$0.id] }, name: { $0.displayName }).id)
            }
        }
        let opened = try await client.roomsCreate(RoomOpenBody(plannedMinutes: minutes, invite: invite.isEmpty ? nil : invite))
        try remember(context, opened.room)
        context.output.result(
            opened,
            "Room opened: \(minutes) minutes, code \(opened.room.code). Friends join with focus room join \(opened.room.code); "
                + "start it with focus room start.")
    }

    static func join(_ context: Context, _ code: String) async throws {
        let joined = try await context.signedIn().roomsJoin(code: code)
        try remember(context, joined.room)
        context.output.result(
            joined, "Joined the room \(joined.room.code) (\(joined.room.plannedMinutes) minutes).\n" + describe(joined.room))
    }

    static func start(_ context: Context) async throws {
        let started = try await context.signedIn().roomsStart(id: try remembered(context))
        if let session = started.room.sessionId {
            try context.config.write(Files.session, text: session.uuidString.lowercased())
        }
        context.output.result(
            started,
            "Room started: every member's \(started.room.plannedMinutes)-minute session runs now. Run focus finish at the end; "
                + "if anyone gives up, nobody gets the bonus.")
    }

    static func show(_ context: Context) async throws {
        let client = try context.signedIn()
        let room: Room
        if let id = context.config.read(Files.room).flatMap(UUID.init(uuidString:)) {
            room = try await client.roomsGet(id: id).room
        } else if let latest = try await client.roomsList().rooms.first {
            room = latest
        } else {
            throw CLIError(.refused, "No room yet: open one with focus room open MINUTES.")
        }
        context.output.result(RoomAnswer(room: room), describe(room))
    }

    /// The room's state and its members, one line each.
    static func describe(_ room: Room) -> String {
        let waiting = room.status == .open || room.status == .running
        let bonus = waiting ? "; bonus \(room.bonusCoins) coins each if all finish" : ""
        var lines = ["Room \(room.code): \(room.plannedMinutes) minutes, \(room.status.rawValue)\(bonus)."]
        for member in room.members {
            let role = member.user.id == room.hostId ? " (host)" : ""
            let outcome = member.outcome.map { ", \($0.rawValue)" } ?? ""
            let bonus = member.bonus > 0 ? ", bonus \(member.bonus)" : ""
            lines.append("  \(member.user.displayName)\(role): \(member.state.rawValue)\(outcome)\(bonus)")
        }
        return lines.joined(separator: "\n")
    }

    private static func remember(_ context: Context, _ room: Room) throws {
        try context.config.write(Files.room, text: room.id.uuidString.lowercased())
    }

    private static func remembered(_ context: Context) throws(CLIError) -> UUID {
        guard let text = context.config.read(Files.room), let id = UUID(uuidString: text) else {
            throw CLIError(.refused, "No room to start: open one with focus room open MINUTES.")
        }
        return id
    }
}

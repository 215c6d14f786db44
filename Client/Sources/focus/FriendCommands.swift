// FriendCommands: the friend list and requests. People are asked by email (the only thing one
// knows of someone who is not a friend yet); requests and friends are then named by display
// name or id, since the server never shows a stranger's email (a request's card has none).

import FocusIslandClient
import Foundation

enum FriendCommands {
    static let commands = [
        Command(
            ["friends"], "[--limit N] [--cursor CURSOR]", "friends (a page at a time) and pending requests", options: ["limit", "cursor"],
            parse: { arguments throws(CLIError) in
                try arguments.count(0...0)
                return try arguments.page()
            }, run: list),
        Command(
            ["friends", "add"], "EMAIL", "ask someone (accepted at once if they had asked you)",
            parse: { arguments throws(CLIError) in try arguments.count(1...1)[0] }, run: add),
        Command(["friends", "accept"], "[NAME|ID]", "accept a request to you (no name: the only one pending)", parse: named, run: accept),
        Command(["friends", "decline"], "[NAME|ID]", "decline a request to you", parse: named, run: decline),
        Command(["friends", "cancel"], "[NAME|ID]", "withdraw a request you sent", parse: named, run: cancel),
        Command(
            ["friends", "remove"], "NAME|ID", "end a friendship",
            parse: { arguments throws(CLIError) in
                guard let name = named(arguments) else { throw arguments.wrong }
                return name
            }, run: remove),
    ]

    /// The request or friend the words name (display name or id); nil when they name none ("" too).
    private static func named(_ arguments: Arguments) -> String? {
        arguments.text.flatMap { $0.isEmpty ? nil : $0 }
    }

    static func list(_ context: Context, _ page: Page) async throws {
        let client = try context.signedIn()
        let friends = try await client.friendsList(limit: page.limit, cursor: page.cursor)
        let requests = try await client.friendRequestsList()
        guard !context.output.json else {
            context.output.object(friends)
            context.output.object(requests)
            return
        }
        Output.write(friends.friends.isEmpty ? "No friends yet: focus friends add EMAIL." : "Friends:")
        for friend in friends.friends {
            Output.write("  \(friend.displayName), \(friend.todayMinutes) minutes today (id \(lower(friend.id)))")
        }
        if let cursor = friends.nextCursor {
            Output.write("More: focus friends --limit \(page.limit ?? friends.friends.count) --cursor \(cursor)")
        }
        for request in requests.incoming {
            Output.write(
                "Request from \(request.from.displayName): focus friends accept \(request.from.displayName) (id \(lower(request.id)))")
        }
        for request in requests.outgoing {
            Output.write("Request to \(request.to.displayName), waiting (id \(lower(request.id)))")
        }
    }

    static func add(_ context: Context, _ email: String) async throws {
        let response = try await context.signedIn().friendRequestsCreate(FriendRequestBody(email: email))
        switch response {
        case .created(let created):
            context.output.result(created, "Friend request sent to \(created.request.to.displayName) <\(email)>.")
        case .okFriendRequestCreated(let created):
            context.output.result(created, "You had already asked \(created.request.to.displayName): the request is still pending.")
        case .okFriendAdded(let added):
            context.output.result(
                added,
                "\(added.friend.displayName) had asked you too: you are now friends with \(added.friend.displayName)."
                    + AchievementCommands.unlocked(added.achievementsUnlocked))
        }
    }

    static func accept(_ context: Context, _ argument: String?) async throws {
        let client = try context.signedIn()
        let request = try incoming(argument, try await client.friendRequestsList().incoming)
        let added = try await client.friendRequestsAccept(id: request.id)
        context.output.result(
            added, "You are now friends with \(added.friend.displayName)." + AchievementCommands.unlocked(added.achievementsUnlocked))
    }

    static func decline(_ context: Context, _ argument: String?) async throws {
        let client = try context.signedIn()
        let request = try incoming(argument, try await client.friendRequestsList().incoming)
        try await client.friendRequestsDecline(id: request.id)
        context.output.say("Declined \(request.from.displayName)'s request.")
    }

    static func cancel(_ context: Context, _ argument: String?) async throws {
        let client = try context.signedIn()
        let outgoing = try await client.friendRequestsList().outgoing
        let request: OutgoingFriendRequest
        if let argument {
            request = try Lookup.one(argument, in: outgoing, what: "request", ids: { [$0.id, $0.to.id] }, name: \.to.displayName)
        } else {
            request = try Lookup.only(outgoing, what: "request", name: \.to.displayName)
        }
        try await client.friendRequestsDelete(id: request.id)
        context.output.say("Withdrew your request to \(request.to.displayName).")
    }

    static func remove(_ context: Context, _ argument: String) async throws {
        let client = try context.signedIn()
        let friend = try Lookup.one(
            argument, in: try await client.friendsList().friends, what: "friend", ids: { [$0.id] }, name: \.displayName)
        try await client.friendsDelete(userId: friend.id)
        context.output.say("\(friend.displayName) is no longer your friend.")
    }

    /// The incoming request `argument` names (request id, sender id or display name), or the only one.
    private static func incoming(_ argument: String?, _ requests: [IncomingFriendRequest]) throws(CLIError) -> IncomingFriendRequest {
        guard let argument else { return try Lookup.only(requests, what: "request", name: \.from.displayName) }
        return try Lookup.one(argument, in: requests, what: "request", ids: { [$0.id, $0.from.id] }, name: \.from.displayName)
    }

    private static func lower(_ id: UUID) -> String { id.uuidString.lowercased() }
}

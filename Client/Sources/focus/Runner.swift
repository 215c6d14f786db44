// Runner: runs one command line to its exit status. Every failure ends here as one sentence on
// stderr (the server's problem detail when it gave one) and the status ExitStatus documents.

import FocusIslandClient
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum Runner {
    static func run(_ arguments: [String]) async -> ExitStatus {
        do {
            let invocation = try Invocation(arguments)
            if invocation.help || invocation.words == ["help"] {
                Output.write(Usage.text)
                return .success
            }
            let command = try Command(invocation.words, options: invocation.values)
            if invocation.follow && command != .events { throw CLIError.usage("--follow goes with focus events only") }
            try await perform(command, try Context(invocation))
            return .success
        } catch {
            let (status, message) = describe(error)
            Output.error("focus: \(message)")
            if status == .usage { Output.error("Run focus --help for the commands.") }
            return status
        }
    }

    static func perform(_ command: Command, _ context: Context) async throws {
        switch command {
        case .register(let email, let displayName): try await AccountCommands.register(context, email: email, displayName: displayName)
        case .login(let email): try await AccountCommands.login(context, email: email)
        case .emailVerify(let code): try await AccountCommands.emailVerify(context, code: code)
        case .emailResend: try await AccountCommands.emailResend(context)
        case .logout: try await AccountCommands.logout(context)
        case .me: try await AccountCommands.me(context)
        case .meBio(let bio): try await AccountCommands.setBio(context, bio)
        case .shop: try await ShopCommands.shop(context)
        case .buy(let item): try await ShopCommands.buy(context, item)
        case .select(let kind, let item): try await ShopCommands.select(context, kind: kind, item)
        case .start(let minutes, let tag): try await SessionCommands.start(context, minutes: minutes, tag: tag)
        case .finish: try await SessionCommands.finish(context)
        case .rate(let rating): try await SessionCommands.rate(context, rating)
        case .history(let page): try await SessionCommands.history(context, page)
        case .statsDaily(let from, let to): try await SessionCommands.daily(context, from: from, to: to)
        case .statsTags(let from, let to): try await SessionCommands.tags(context, from: from, to: to)
        case .friends(let page): try await FriendCommands.list(context, page)
        case .friendsAdd(let email): try await FriendCommands.add(context, email: email)
        case .friendsAccept(let name): try await FriendCommands.accept(context, name)
        case .friendsDecline(let name): try await FriendCommands.decline(context, name)
        case .friendsCancel(let name): try await FriendCommands.cancel(context, name)
        case .friendsRemove(let name): try await FriendCommands.remove(context, name)
        case .events: try await EventCommands.events(context)
        case .tipsSync: try await TipCommands.sync(context)
        case .config: try await ConfigCommands.show(context)
        case .room: try await RoomCommands.show(context)
        case .roomOpen(let minutes, let invite): try await RoomCommands.open(context, minutes: minutes, invite: invite)
        case .roomJoin(let code): try await RoomCommands.join(context, code: code)
        case .roomStart: try await RoomCommands.start(context)
        case .achievements(let friend): try await AchievementCommands.show(context, friend: friend)
        case .gifts: try await GiftCommands.list(context)
        case .giftSend(let friend, let coins, let item): try await GiftCommands.send(context, to: friend, coins: coins, item: item)
        case .giftAccept(let id): try await GiftCommands.answer(context, id: id, accept: true)
        case .giftDecline(let id): try await GiftCommands.answer(context, id: id, accept: false)
        case .streak: try await StreakCommands.show(context)
        case .streakFreeze: try await StreakCommands.freeze(context)
        }
    }

    /// The exit status and the sentence for a failure.
    static func describe(_ error: any Error) -> (ExitStatus, String) {
        switch error {
        case let error as CLIError:
            return (error.status, error.message)
        case let error as FocusIslandError:
            switch error {
            case .problem(let problem) where problem.code == .unauthorized:
                return (.notSignedIn, "\(problem.detail) Sign in again: focus login EMAIL.")
            case .problem(let problem) where problem.status >= 500:
                let retry = problem.retryAfter.map { " (try again in \(Int($0)) s)" } ?? ""
                return (.unavailable, problem.detail + retry)
            case .problem(let problem):
                return (.refused, problem.detail)
            case .transport(let failure):
                return (.unavailable, "could not reach the server: \(failure.localizedDescription)")
            case .decoding, .unexpectedStatus:
                return (.local, "the server's answer could not be read (\(error.description))")
            case .encoding, .storage:
                return (.local, error.description)
            case .invalidBaseURL:
                return (.usage, "FOCUS_URL is not a server's base URL (\(error.description))")
            case .cancelled:
                return (.local, "interrupted")
            }
        default:
            return (.local, "\(error)")
        }
    }
}

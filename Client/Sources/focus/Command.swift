// Command: what the words of the command line ask for, checked before anything is sent. Each
// case carries its arguments already validated (a rating, a kind, a number of minutes), so the
// code that runs a command never sees a malformed one.

/// One of the things `focus` can do.
enum Command: Equatable {
    case register(email: String, displayName: String?)
    case login(email: String)
    case logout
    case me
    /// The code mailed to your email, or to the address you asked to change to.
    case emailVerify(code: String)
    case emailResend
    /// A new bio ("" clears it).
    case meBio(String)
    case shop
    /// An item's name (any case) or id.
    case buy(String)
    case select(kind: String, item: String)
    /// A live session's plan, and its tag (`--tag`).
    case start(minutes: Int, tag: String?)
    case finish
    case rate(String)
    /// Your sessions, newest first, one page (`--limit`, `--cursor`).
    case history(Page)
    /// Minutes and sessions per day of your time zone (`--from`, `--to`: YYYY-MM-DD).
    case statsDaily(from: String?, to: String?)
    /// Minutes and sessions by tag (`--from`, `--to`).
    case statsTags(from: String?, to: String?)
    /// Friends (one page: `--limit`, `--cursor`) and pending requests.
    case friends(Page)
    case friendsAdd(email: String)
    /// A pending request, named by its id, the other user's id or display name; nil: the only one.
    case friendsAccept(String?)
    case friendsDecline(String?)
    case friendsCancel(String?)
    /// A friend, named by user id or display name.
    case friendsRemove(String)
    case events
    case tipsSync
    /// GET /config: versions, maintenance, feature flags, the economy.
    case config

    /// One page of a list: at most `limit` rows (the server's default when nil), after `cursor`
    /// (the `next_cursor` a previous page printed; nil: the first page).
    struct Page: Equatable {
        var limit: Int?
        var cursor: String?
    }
    /// The room this config directory opened or joined last (else the newest of yours).
    case room
    /// A plan and the friends to invite, by display name or id.
    case roomOpen(minutes: Int, invite: [String])
    case roomJoin(code: String)
    case roomStart
    /// Yours with their progress, or a friend's (display name or id) unlocked ones.
    case achievements(friend: String?)
    /// Pending gifts to you and the gifts you sent.
    case gifts
    /// A friend (display name or id) and coins, or an item (name or id).
    case giftSend(friend: String, coins: Int?, item: String?)
    /// A gift by id; nil: the only one pending for you.
    case giftAccept(id: String?)
    case giftDecline(id: String?)
    /// Your streak, the freezes you hold and the days they covered.
    case streak
    /// Buy a streak freeze.
    case streakFreeze

    static let kinds = ["pet", "sound", "furniture"]
    static let ratings = ["good", "fine", "bad"]

    /// The command the words and value options (`Invocation.values`) name; a usage error says
    /// what is wrong, an option the command does not take included.
    init(_ words: [String], options: [String: String] = [:]) throws(CLIError) {
        guard let name = words.first else { throw .usage("no command given") }
        let arguments = Array(words.dropFirst())
        let taken: Set<String>
        switch (name, arguments.first) {
        case ("start", _): taken = ["tag"]
        case ("finish", _): taken = ["ended-at"]
        case ("register", _): taken = ["time-zone", "code"]
        case ("history", _), ("friends", nil), ("friend", nil): taken = ["limit", "cursor"]
        case ("stats", _): taken = ["from", "to"]
        default: taken = []
        }
        // --language goes with every command (it only sets Accept-Language).
        if let extra = options.keys.sorted().first(where: { !taken.contains($0) && $0 != "language" }) {
            throw .usage("--\(extra) does not go with focus \(name)")
        }
        switch name {
        case "register":
            try Self.count(arguments, 1...2, "focus register EMAIL [DISPLAY NAME]")
            self = .register(email: arguments[0], displayName: arguments.count > 1 ? arguments[1] : nil)
        case "login":
            try Self.count(arguments, 1...1, "focus login EMAIL")
            self = .login(email: arguments[0])
        case "logout":
            try Self.count(arguments, 0...0, "focus logout")
            self = .logout
        case "me":
            if arguments.isEmpty {
                self = .me
            } else if arguments[0] == "bio" && arguments.count >= 2 {
                self = .meBio(arguments.dropFirst().joined(separator: " "))
            } else {
                throw .usage("usage: focus me [bio TEXT]")
            }
        case "email":
            switch arguments.first {
            case "verify" where arguments.count == 2: self = .emailVerify(code: arguments[1])
            case "resend" where arguments.count == 1: self = .emailResend
            default: throw .usage("usage: focus email verify CODE | focus email resend")
            }
        case "shop":
            try Self.count(arguments, 0...0, "focus shop")
            self = .shop
        case "buy":
            guard !arguments.isEmpty else { throw .usage("usage: focus buy NAME|ID") }
            self = .buy(arguments.joined(separator: " "))
        case "select":
            guard arguments.count >= 2, Self.kinds.contains(arguments[0]) else {
                throw .usage("usage: focus select pet|sound|furniture NAME|ID")
            }
            self = .select(kind: arguments[0], item: arguments.dropFirst().joined(separator: " "))
        case "start":
            try Self.count(arguments, 0...1, "focus start [MINUTES] [--tag TAG]")
            let text = arguments.first ?? "25"
            guard let minutes = Int(text), (1...180).contains(minutes) else {
                throw .usage("minutes must be a whole number from 1 to 180, not \(text)")
            }
            self = .start(minutes: minutes, tag: options["tag"])
        case "history":
            try Self.count(arguments, 0...0, "focus history [--limit N] [--cursor CURSOR]")
            self = .history(try Self.page(options))
        case "stats":
            let from = try Self.date(options["from"]), to = try Self.date(options["to"])
            switch arguments {
            case ["daily"]: self = .statsDaily(from: from, to: to)
            case ["tags"]: self = .statsTags(from: from, to: to)
            default: throw .usage("usage: focus stats daily|tags [--from YYYY-MM-DD] [--to YYYY-MM-DD]")
            }
        case "finish":
            try Self.count(arguments, 0...0, "focus finish [--ended-at TIME]")
            self = .finish
        case "rate":
            guard arguments.count == 1, Self.ratings.contains(arguments[0]) else {
                throw .usage("usage: focus rate good|fine|bad")
            }
            self = .rate(arguments[0])
        case "friends", "friend":
            self = try Self.friends(arguments, options)
        case "events":
            try Self.count(arguments, 0...0, "focus events [--follow]")
            self = .events
        case "tips":
            guard arguments == ["sync"] else { throw .usage("usage: focus tips sync") }
            self = .tipsSync
        case "config":
            try Self.count(arguments, 0...0, "focus config")
            self = .config
        case "room", "rooms":
            self = try Self.room(arguments)
        case "achievements":
            self = .achievements(friend: arguments.isEmpty ? nil : arguments.joined(separator: " "))
        case "gift", "gifts":
            self = try Self.gift(arguments)
        case "streak":
            switch arguments {
            case []: self = .streak
            case ["freeze"]: self = .streakFreeze
            default: throw .usage("usage: focus streak [freeze]")
            }
        default:
            throw .usage("unknown command \(name)")
        }
    }

    private static func friends(_ arguments: [String], _ options: [String: String]) throws(CLIError) -> Command {
        guard let action = arguments.first else { return .friends(try page(options)) }
        let rest = arguments.dropFirst().joined(separator: " ")
        let named: String? = rest.isEmpty ? nil : rest
        switch action {
        case "add":
            guard arguments.count == 2 else { throw .usage("usage: focus friends add EMAIL") }
            return .friendsAdd(email: arguments[1])
        case "accept": return .friendsAccept(named)
        case "decline": return .friendsDecline(named)
        case "cancel": return .friendsCancel(named)
        case "remove":
            guard let named else { throw .usage("usage: focus friends remove NAME|ID") }
            return .friendsRemove(named)
        default:
            throw .usage("unknown friends command \(action) (add, accept, decline, cancel, remove)")
        }
    }

    /// `--limit` (a whole number from 1; the server says how many at most) and `--cursor`.
    private static func page(_ options: [String: String]) throws(CLIError) -> Page {
        var page = Page(cursor: options["cursor"])
        if let text = options["limit"] {
            guard let limit = Int(text), limit >= 1 else { throw .usage("--limit must be a whole number from 1, not \(text)") }
            page.limit = limit
        }
        return page
    }

    /// A `--from` or `--to` day: YYYY-MM-DD (the server refuses a day that does not exist).
    private static func date(_ text: String?) throws(CLIError) -> String? {
        guard let text else { return nil }
        let digits = text.split(separator: "-", omittingEmptySubsequences: false)
        guard digits.map(\.count) == [4, 2, 2], digits.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            throw .usage("a day is YYYY-MM-DD, not \(text)")
        }
        return text
    }

    private static func room(_ arguments: [String]) throws(CLIError) -> Command {
        guard let action = arguments.first else { return .room }
        switch action {
        case "open":
            var rest = Array(arguments.dropFirst())
            var minutes = 25
            if let first = rest.first, first.allSatisfy(\.isNumber) {
                guard let value = Int(first), (1...180).contains(value) else {
                    throw .usage("minutes must be a whole number from 1 to 180, not \(first)")
                }
                minutes = value
                rest.removeFirst()
            }
            return .roomOpen(minutes: minutes, invite: rest)
        case "join":
            guard arguments.count == 2 else { throw .usage("usage: focus room join CODE") }
            return .roomJoin(code: arguments[1])
        case "start":
            try Self.count(arguments, 1...1, "focus room start")
            return .roomStart
        default:
            throw .usage("unknown room command \(action) (open, join, start)")
        }
    }

    private static func gift(_ arguments: [String]) throws(CLIError) -> Command {
        guard let action = arguments.first else { return .gifts }
        switch action {
        case "send":
            guard arguments.count >= 3 else { throw .usage("usage: focus gift send FRIEND COINS|ITEM") }
            let what = arguments.dropFirst(2).joined(separator: " ")
            if what.allSatisfy(\.isNumber) {
                guard let coins = Int(what), coins >= 1 else { throw .usage("coins must be a whole number of 1 or more, not \(what)") }
                return .giftSend(friend: arguments[1], coins: coins, item: nil)
            }
            return .giftSend(friend: arguments[1], coins: nil, item: what)
        case "accept", "decline":
            try Self.count(arguments, 1...2, "focus gift \(action) [ID]")
            let id = arguments.count == 2 ? arguments[1] : nil
            return action == "accept" ? .giftAccept(id: id) : .giftDecline(id: id)
        default:
            throw .usage("unknown gift command \(action) (send, accept, decline)")
        }
    }

    private static func count(_ arguments: [String], _ allowed: ClosedRange<Int>, _ usage: String) throws(CLIError) {
        guard allowed.contains(arguments.count) else { throw .usage("usage: \(usage)") }
    }
}

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
    case start(minutes: Int)
    case finish
    case rate(String)
    case friends
    case friendsAdd(email: String)
    /// A pending request, named by its id, the other user's id or display name; nil: the only one.
    case friendsAccept(String?)
    case friendsDecline(String?)
    case friendsCancel(String?)
    /// A friend, named by user id or display name.
    case friendsRemove(String)
    case events
    case tipsSync
    /// The room this config directory opened or joined last (else the newest of yours).
    case room
    /// A plan and the friends to invite, by display name or id.
    case roomOpen(minutes: Int, invite: [String])
    case roomJoin(code: String)
    case roomStart

    static let kinds = ["pet", "sound", "furniture"]
    static let ratings = ["good", "fine", "bad"]

    /// The command the words name; a usage error says what is wrong.
    init(_ words: [String]) throws(CLIError) {
        guard let name = words.first else { throw .usage("no command given") }
        let arguments = Array(words.dropFirst())
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
            try Self.count(arguments, 0...1, "focus start [MINUTES]")
            let text = arguments.first ?? "25"
            guard let minutes = Int(text), (1...180).contains(minutes) else {
                throw .usage("minutes must be a whole number from 1 to 180, not \(text)")
            }
            self = .start(minutes: minutes)
        case "finish":
            try Self.count(arguments, 0...0, "focus finish")
            self = .finish
        case "rate":
            guard arguments.count == 1, Self.ratings.contains(arguments[0]) else {
                throw .usage("usage: focus rate good|fine|bad")
            }
            self = .rate(arguments[0])
        case "friends", "friend":
            self = try Self.friends(arguments)
        case "events":
            try Self.count(arguments, 0...0, "focus events [--follow]")
            self = .events
        case "tips":
            guard arguments == ["sync"] else { throw .usage("usage: focus tips sync") }
            self = .tipsSync
        case "room", "rooms":
            self = try Self.room(arguments)
        default:
            throw .usage("unknown command \(name)")
        }
    }

    private static func friends(_ arguments: [String]) throws(CLIError) -> Command {
        guard let action = arguments.first else { return .friends }
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

    private static func count(_ arguments: [String], _ allowed: ClosedRange<Int>, _ usage: String) throws(CLIError) {
        guard allowed.contains(arguments.count) else { throw .usage("usage: \(usage)") }
    }
}

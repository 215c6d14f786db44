// Commands: every command of `focus`, in the groups `focus --help` shows them in, and the
// dispatch from a command line's words to one of them. A new command is one value in its
// group's list (the `commands` of its <Area>Commands.swift); a new group is one line here.

/// A heading of `focus --help` and its commands, in the order it lists them.
struct CommandGroup: Sendable {
    let title: String
    let commands: [Command]
    /// A line under the group's commands in `focus --help`.
    var note: String?
}

enum Commands {
    static let groups: [CommandGroup] = [
        CommandGroup(title: "account", commands: AccountCommands.commands),
        CommandGroup(title: "shop", commands: ShopCommands.commands),
        CommandGroup(title: "focus sessions", commands: SessionCommands.commands),
        CommandGroup(
            title: "friends", commands: FriendCommands.commands,
            note: "(NAME is the other user's display name; ID a request id or the user's id)"),
        CommandGroup(
            title: "focus rooms (friends focus together; if anyone gives up, nobody gets the bonus)", commands: RoomCommands.commands),
        CommandGroup(title: "achievements", commands: AchievementCommands.commands),
        CommandGroup(title: "gifts (to friends; paid when sent, refunded if declined or expired)", commands: GiftCommands.commands),
        CommandGroup(title: "streak", commands: StreakCommands.commands),
        CommandGroup(title: "live", commands: EventCommands.commands + TipCommands.commands),
        CommandGroup(title: "server", commands: ConfigCommands.commands),
    ]

    static let all = groups.flatMap(\.commands)

    /// Other first words that name the same commands: `focus friend add` is `focus friends add`.
    static let aliases = ["friend": "friends", "rooms": "room", "gifts": "gift"]

    /// The command the words name, its arguments read: the longest command whose words start the
    /// line (`friends add` before `friends`). A usage error says what is wrong: an unknown
    /// command, a value option the command does not take (--language goes with all), the
    /// arguments it does not take (its usage line), or the subcommands of a group when the word
    /// after the group's name is none of them.
    static func parse(_ line: [String], options: [String: String] = [:], follow: Bool = false) throws(CLIError) -> ParsedCommand {
        guard let name = line.first else { throw .usage("no command given") }
        let words = [aliases[name] ?? name] + line.dropFirst()
        let family = all.filter { $0.words.first == words[0] }
        guard !family.isEmpty else { throw .usage("unknown command \(name)") }
        guard let command = family.filter({ words.starts(with: $0.words) }).max(by: { $0.words.count < $1.words.count }) else {
            throw .usage("usage: " + family.map(\.usage).joined(separator: " | "))
        }
        if let extra = options.keys.sorted().first(where: { !command.options.contains($0) && $0 != "language" }) {
            throw .usage("--\(extra) does not go with focus \(name)")
        }
        let rest = Array(words.dropFirst(command.words.count))
        let parsed: ParsedCommand
        do {
            parsed = try command.parse(rest, options: options, follow: follow)
        } catch {
            let subcommands = family.compactMap { $0.words.count > 1 ? $0.words[1] : nil }
            if command.words.count == 1, let word = rest.first, !subcommands.isEmpty {
                throw .usage("unknown \(words[0]) command \(word) (\(subcommands.joined(separator: ", ")))")
            }
            throw error
        }
        if follow && !command.options.contains("follow") {
            let takers = all.filter { $0.options.contains("follow") }.map { "focus " + $0.words.joined(separator: " ") }
            throw .usage("--follow goes with \(takers.joined(separator: ", ")) only")
        }
        return parsed
    }
}

// Command: one thing `focus` does, described whole in one value: the words that name it, its
// lines in `focus --help`, the value options it takes, how its arguments are read into a value
// (checked before anything is sent) and what it runs with that value. Each <Area>Commands.swift
// lists its commands; Commands.swift lists the groups; the help (Usage.swift) and the dispatch
// (Commands.parse) read that list and restate nothing.

/// One command of `focus`, such as `focus friends add EMAIL`.
struct Command: Sendable {
    /// The words that name it: ["friends", "add"]; a group's own command has one (["friends"]).
    let words: [String]
    /// What follows the words in its usage line: "EMAIL", "[MINUTES] [--tag TAG]"; "" for nothing.
    let arguments: String
    /// What it does, beside its usage in `focus --help` (each further line of it goes under the first).
    let summary: String
    /// More rows of `focus --help` under its usage: the options it takes, another form of it.
    let more: [HelpRow]
    /// The value options it takes, by name ("limit" for `--limit N`), and "follow" if it takes
    /// --follow; --json and --language go with every command.
    let options: Set<String>
    /// Reads the arguments into the command's value and binds it to the command's action.
    private let bind: @Sendable (Arguments) throws(CLIError) -> ParsedCommand

    /// A command whose arguments `parse` reads into a value that `run` then acts on.
    init<Value: Sendable>(
        _ words: [String], _ arguments: String, _ summary: String, more: [HelpRow] = [], options: Set<String> = [],
        parse: @escaping @Sendable (Arguments) throws(CLIError) -> Value,
        run: @escaping @Sendable (Context, Value) async throws -> Void
    ) {
        self.words = words
        self.arguments = arguments
        self.summary = summary
        self.more = more
        self.options = options
        bind = { arguments throws(CLIError) in
            let value = try parse(arguments)
            return ParsedCommand(words: words, value: value, run: { context in try await run(context, value) })
        }
    }

    /// A command that takes no arguments.
    init(
        _ words: [String], _ summary: String, more: [HelpRow] = [], options: Set<String> = [],
        run: @escaping @Sendable (Context) async throws -> Void
    ) {
        self.init(
            words, "", summary, more: more, options: options,
            parse: { arguments throws(CLIError) in
                try arguments.count(0...0)
                return ()
            }, run: { context, _ in try await run(context) })
    }

    /// "focus friends add EMAIL": the first row of its help and what a usage error prints.
    var usage: String { (["focus"] + words + (arguments.isEmpty ? [] : [arguments])).joined(separator: " ") }

    /// The command with its arguments read, ready to run; a usage error if they are wrong.
    func parse(_ words: [String], options: [String: String] = [:], follow: Bool = false) throws(CLIError) -> ParsedCommand {
        try bind(Arguments(words: words, options: options, follow: follow, usage: usage))
    }
}

/// A command whose arguments were read: the value its action runs with.
struct ParsedCommand: Sendable {
    /// The command's words.
    let words: [String]
    /// What its parse read (an email, a `Page`, ...): the tests compare it.
    let value: any Sendable
    let run: @Sendable (Context) async throws -> Void
}

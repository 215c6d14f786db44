// Usage: the text of `focus --help`. The commands' rows are read from the list of commands
// (Commands.groups: each command's usage and summary); the options, the environment and the exit
// statuses (ExitStatus.swift) follow.

enum Usage {
    static var text: String {
        let statuses = ExitStatus.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
        let groups = Commands.groups.map { group in
            let rows = group.commands.flatMap { [HelpRow($0.usage, $0.summary)] + $0.more }.map(\.text)
            return ([group.title] + rows + (group.note.map { ["  " + $0] } ?? [])).joined(separator: "\n")
        }
        return """
            focus: Focus Island from the command line

            usage: focus [--json] COMMAND [ARGUMENTS]

            \(groups.joined(separator: "\n\n"))

            options
              --json          the server's JSON instead of sentences, one object per line
              --follow, -f    with events: keep streaming (Ctrl-C to stop)
              --ended-at TIME with finish: when the session really ended
              --time-zone ZONE
                              with register: the account's time zone
              --code CODE     with register: the code the server mailed first (see register)
              --help, -h      this text
              --language TAG  items and tips in that language when the server offers it (Accept-Language,
                              e.g. es or "es-MX, es;q=0.9"); else English
              --limit N, --cursor CURSOR
                              with friends and history: a page of N; the cursor a page printed as "More:"
              --tag TAG       with start: the session's label ("math"; stats tags sums by it)
              --from DAY, --to DAY
                              with stats: the first and last day, YYYY-MM-DD

            environment
              FOCUS_URL       the server (default http://127.0.0.1:8080)
              FOCUS_PASSWORD  the password for register and login (else asked on the terminal, without echo)
              XDG_CONFIG_HOME the config directory's parent (default ~/.config): focus-island/ holds
                              token (mode 0600), session, tips.json and events

            exit status
            \(statuses)
            """
    }
}

/// A row of `focus --help`: a command's usage (or an option under it) and what it does, at column
/// 40. A usage too long for its column has the text on the next line; each further line of the
/// text goes under the first.
struct HelpRow: Sendable {
    /// "focus events --follow", or "  [--code CODE]" for an option of the command above.
    let left: String
    let right: String

    init(_ left: String, _ right: String) {
        self.left = left
        self.right = right
    }

    private static let column = 38

    var text: String {
        let margin = String(repeating: " ", count: Self.column + 2)
        let lines = right.split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.first ?? ""
        let head =
            left.count < Self.column
            ? ["  " + left + String(repeating: " ", count: Self.column - left.count) + first] : ["  " + left, margin + first]
        return (head + lines.dropFirst().map { margin + $0 }).joined(separator: "\n")
    }
}

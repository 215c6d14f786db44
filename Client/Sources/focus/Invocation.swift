// Invocation: the command line split into words and options. Options may stand anywhere
// (`focus --json me` or `focus me --json`); `--` ends them, so a word that starts with a dash
// (a display name, a password is never an argument) can still be passed.

/// The words and options of one run of `focus`.
struct Invocation: Equatable {
    /// The positional words: the command, its subcommand and arguments.
    var words: [String] = []
    /// `--json`: print the server's JSON (one object per line) instead of sentences.
    var json = false
    /// `--follow`: keep `focus events` open and print events as they come.
    var follow = false
    /// `--help` or `-h`: print the usage and exit 0.
    var help = false
    /// The options that take a value (`--limit 20` or `--limit=20`), by name without the dashes:
    /// limit, cursor (a list's page), tag (a session's), from, to (a range of days).
    var values: [String: String] = [:]

    static let options = ["--json", "--follow", "--help", "-h"]
    static let valueOptions = ["limit", "cursor", "tag", "from", "to"]

    /// Parses the arguments after the program's name.
    init(_ arguments: [String]) throws(CLIError) {
        var optionsEnded = false
        var waiting: String?
        for argument in arguments {
            if let name = waiting {
                values[name] = argument
                waiting = nil
                continue
            }
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                words.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2).prefix(while: { $0 != "=" }))
            if argument.hasPrefix("--"), Self.valueOptions.contains(name) {
                if let equals = argument.firstIndex(of: "=") {
                    values[name] = String(argument[argument.index(after: equals)...])
                } else {
                    waiting = name
                }
                continue
            }
            switch argument {
            case "--": optionsEnded = true
            case "--json": json = true
            case "--follow", "-f": follow = true
            case "--help", "-h": help = true
            default:
                throw .usage(
                    "unknown option \(argument) (options: --json, --follow, --help, --limit, --cursor, --tag, --from, --to)")
            }
        }
        if let name = waiting { throw .usage("--\(name) needs a value") }
    }
}

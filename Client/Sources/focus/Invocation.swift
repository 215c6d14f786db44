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
    /// limit, cursor (a list's page), tag (a session's), from, to (a range of days), language,
    /// ended-at (finish), time-zone and code (register). Which command takes which is in its
    /// `Command.options`; its parse reads them.
    var values: [String: String] = [:]

    /// `--language TAG`: sent as Accept-Language, so items and tips come in that language when
    /// the server offers it (else English). It goes with every command.
    var language: String? { values["language"] }

    static let options = ["--json", "--follow", "--help", "-h"]
    static let valueOptions = ["limit", "cursor", "tag", "from", "to", "language", "ended-at", "time-zone", "code"]

    /// Parses the arguments after the program's name. An option with a value takes the next
    /// word (`--ended-at 2026-12-01T10:15:00Z`) or what follows `=` (`--time-zone=Asia/Tokyo`).
    init(_ arguments: [String]) throws(CLIError) {
        var optionsEnded = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                words.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2).prefix(while: { $0 != "=" }))
            if argument.hasPrefix("--"), Self.valueOptions.contains(name) {
                let inline = argument.firstIndex(of: "=").map { String(argument[argument.index(after: $0)...]) }
                guard let value = inline ?? rest.popFirst(), !value.isEmpty else {
                    if name == "language" { throw .usage("--language needs a language tag, like es or es-MX") }
                    throw .usage("--\(name) needs a value")
                }
                values[name] = name == "language" ? try Self.language(value) : value
                continue
            }
            switch argument {
            case "--": optionsEnded = true
            case "--json": json = true
            case "--follow", "-f": follow = true
            case "--help", "-h": help = true
            default:
                throw .usage(
                    "unknown option \(argument) (options: --json, --follow, --help, --limit, --cursor, --tag, --from, --to, "
                        + "--language TAG, --ended-at, --time-zone, --code)")
            }
        }
    }

    /// A language tag or an Accept-Language list: letters, digits, - , ; = . * and spaces only,
    /// so nothing else can reach a request header.
    static func language(_ text: String) throws(CLIError) -> String {
        guard !text.isEmpty, text.count <= 200,
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                    || "-,;=.* ".utf8.contains(byte)
            })
        else { throw .usage("--language needs a language tag, like es or es-MX") }
        return text
    }
}

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

    static let options = ["--json", "--follow", "--help", "-h"]

    /// Parses the arguments after the program's name.
    init(_ arguments: [String]) throws(CLIError) {
        var optionsEnded = false
        for argument in arguments {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                words.append(argument)
                continue
            }
            switch argument {
            case "--": optionsEnded = true
            case "--json": json = true
            case "--follow", "-f": follow = true
            case "--help", "-h": help = true
            default: throw .usage("unknown option \(argument) (options: --json, --follow, --help)")
            }
        }
    }
}

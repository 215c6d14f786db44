// ExitStatus: the process's exit status for each way a command can end, and the errors that carry
// one. `focus --help` lists the same table (Usage.swift), so scripts can branch on the number.

/// What `focus` exits with. The numbers are part of the command's interface: keep them stable.
enum ExitStatus: Int32, CaseIterable {
    /// The command did what it says.
    case success = 0
    /// The server refused the request (a 4xx problem other than 401): its detail is on stderr.
    case refused = 1
    /// The command line was wrong (unknown command, missing or bad argument): usage on stderr.
    case usage = 2
    /// Not signed in: no token in the config directory, or the server no longer accepts it.
    case notSignedIn = 3
    /// The server could not be reached or was unavailable (connection failed, 5xx, timeout).
    case unavailable = 4
    /// Something failed on this machine: the config directory, the terminal, an unreadable answer.
    case local = 5
    /// The server mailed a code first (register from a network many people share) and there was
    /// no terminal to ask for it: run the command again with `--code CODE`.
    case codeMailed = 6

    /// One line per status for `--help`.
    var meaning: String {
        switch self {
        case .success: return "success"
        case .refused: return "the server refused the request (its detail is printed on stderr)"
        case .usage: return "bad command line (unknown command, missing or bad argument), or no password to read"
        case .notSignedIn: return "not signed in (no token saved, or the server rejected it): run focus login"
        case .unavailable: return "the server could not be reached, or answered 5xx / timed out"
        case .local: return "a local failure (config directory, terminal, an answer that could not be read)"
        case .codeMailed: return "register: a code was mailed to the email and no terminal could ask for it: run it again with --code CODE"
        }
    }
}

/// An error the CLI itself raises, with the sentence to print and the status to exit with.
struct CLIError: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }
}

// Runner: runs one command line to its exit status: the help, or the command Commands.parse finds
// for its words. Every failure ends here as one sentence on stderr (the server's problem detail
// when it gave one) and the status ExitStatus documents.

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
            let command = try Commands.parse(invocation.words, options: invocation.values, follow: invocation.follow)
            try await command.run(try Context(invocation))
            return .success
        } catch {
            let (status, message) = describe(error)
            Output.error("focus: \(message)")
            if status == .usage { Output.error("Run focus --help for the commands.") }
            return status
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

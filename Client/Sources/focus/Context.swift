// Context: what every command needs: the options, the config directory, the output, and a
// client for the server at FOCUS_URL (with the saved token when the command needs one).

import FocusIslandClient
import Foundation

struct Context {
    let invocation: Invocation
    let config: ConfigDirectory
    let output: Output
    let baseURL: URL

    static let defaultURL = "http://127.0.0.1:8080"

    init(_ invocation: Invocation, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) {
        self.invocation = invocation
        config = try ConfigDirectory(environment: environment)
        output = Output(json: invocation.json)
        let text = environment["FOCUS_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultURL
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .usage("FOCUS_URL is not an http(s) URL: \(text)")
        }
        baseURL = url
    }

    /// The token saved by register or login; not signed in without one.
    func token() throws(CLIError) -> String {
        guard let token = config.read(Files.token) else {
            throw CLIError(.notSignedIn, "not signed in: run focus login EMAIL (or focus register EMAIL)")
        }
        return token
    }

    /// A client signed in with the saved token.
    func signedIn() throws(CLIError) -> FocusIslandClient {
        try client(token: try token())
    }

    /// A client without a token, for the public routes (register, login, the catalog, tips).
    func anonymous() throws(CLIError) -> FocusIslandClient {
        try client(token: nil)
    }

    private func client(token: String?) throws(CLIError) -> FocusIslandClient {
        do {
            return try FocusIslandClient(baseURL: baseURL, token: token, language: invocation.language)
        } catch {
            throw .usage("FOCUS_URL is not a server's base URL (\(error))")
        }
    }
}

/// The names of the files in the config directory.
enum Files {
    static let token = "token"
    static let session = "session"
    static let tips = "tips.json"
    static let events = "events"
    static let room = "room"
}

// The client README's example for app developers (Client/README.md) is this target's
// AppDeveloperExample.swift, word for word, and it works against the real server.
import FocusIslandClient
import Foundation
import Synchronization
import Testing

@Suite struct AppDeveloperExampleTests {
    static let marker = "<!-- Tests/ClientJourneyTests/AppDeveloperExample.swift -->"

    @Test func theReadmeQuotesTheExampleThatIsBuilt() throws {
        let root = JourneyServer.repositoryRoot
        let readme = try String(contentsOf: root.appendingPathComponent("Client/README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: root.appendingPathComponent("Tests/ClientJourneyTests/AppDeveloperExample.swift"), encoding: .utf8)
        let example = try #require(
            source.components(separatedBy: "// BEGIN README EXAMPLE\n").last?.components(separatedBy: "// END README EXAMPLE").first)
        let afterMarker = try #require(readme.components(separatedBy: Self.marker + "\n").dropFirst().first)
        let quoted = try #require(
            afterMarker.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```\n").first)
        #expect(
            quoted == example,
            "Client/README.md's example differs from AppDeveloperExample.swift: copy the file's lines between the markers")
    }

    @Test func theExampleRunsAgainstTheServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("focus-island-example-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let email = uniqueEmail("example")
        let lines = Lines()
        try await focusIslandExample(
            server: try JourneyServer.baseURL(), email: email, queueFile: directory.appendingPathComponent("queue.json"),
            // The session runs from the sign-up to `now`: a minute and a half on, within the
            // server's two minutes of clock skew.
            now: try JourneyServer.databaseNow().addingTimeInterval(90), report: { lines.append($0) })
        #expect(lines.all.contains("signed in as Ada"))
        #expect(lines.all.contains { $0.hasPrefix("not yet: ") })
        #expect(lines.all.contains("1 session(s) recorded, 0 refused"))

        let client = try journeyClient()
        try await client.login(email: email, password: "correct horse battery")
        let sessions = try await client.focusSessionsList().sessions
        #expect(sessions.count == 1)
        #expect(sessions.first?.rating == .good)
    }
}

/// What the example reported, from whichever task.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

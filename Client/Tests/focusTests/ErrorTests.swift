import FocusIslandClient
import Foundation
import Testing

@testable import focus

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Names are matched as people type them, and each failure maps to the exit status --help lists.
@Suite struct ErrorTests {
    private struct Thing {
        let id: UUID
        let name: String
    }

    private let things = [Thing(id: UUID(), name: "Potted Fern"), Thing(id: UUID(), name: "Oak Desk"), Thing(id: UUID(), name: "oak desk")]

    @Test func lookupByIdOrNameIgnoringCase() throws {
        let byName = try Lookup.one("potted FERN", in: things, what: "item", ids: { [$0.id] }, name: \.name)
        #expect(byName.name == "Potted Fern")
        let byId = try Lookup.one(things[1].id.uuidString.lowercased(), in: things, what: "item", ids: { [$0.id] }, name: \.name)
        #expect(byId.id == things[1].id)
        let byStart = try Lookup.one("pott", in: things, what: "item", ids: { [$0.id] }, name: \.name)
        #expect(byStart.name == "Potted Fern")
    }

    @Test func noMatchOrTwoMatchesSaySo() {
        do {
            _ = try Lookup.one("unicorn", in: things, what: "item", ids: { [$0.id] }, name: \.name)
            Issue.record("unicorn matched")
        } catch {
            #expect(error.status == .refused && error.message.contains("No item named unicorn"))
        }
        do {
            _ = try Lookup.one("Oak desk", in: things, what: "item", ids: { [$0.id] }, name: \.name)
            Issue.record("an ambiguous name matched")
        } catch {
            #expect(error.message.contains("2 items match Oak desk (Oak Desk, oak desk)"))
        }
        do {
            _ = try Lookup.one(
                "o", in: [Thing(id: UUID(), name: "Oak"), Thing(id: UUID(), name: "Owl")], what: "item", ids: { [$0.id] }, name: \.name)
            Issue.record("a start two names share matched")
        } catch {
            #expect(error.message.contains("2 items match o (Oak, Owl)"))
        }
    }

    @Test func failuresMapToTheirExitStatus() {
        func status(_ error: any Error) -> focus.ExitStatus { Runner.describe(error).0 }
        let problem = { (status: Int, code: ProblemCode) in
            FocusIslandError.problem(ServerProblem(status: status, code: code, detail: "Detail."))
        }
        #expect(status(problem(401, .unauthorized)) == .notSignedIn)
        #expect(status(problem(401, .invalidCredentials)) == .refused)
        #expect(status(problem(404, .itemNotFound)) == .refused)
        #expect(status(problem(409, .insufficientFunds)) == .refused)
        #expect(status(problem(503, .databaseUnavailable)) == .unavailable)
        #expect(status(FocusIslandError.transport(URLError(.cannotConnectToHost))) == .unavailable)
        #expect(status(FocusIslandError.unexpectedStatus(299)) == .local)
        #expect(status(FocusIslandError.invalidBaseURL("file:///x")) == .usage)
        #expect(status(FocusIslandError.cancelled) == .local)
        #expect(status(CLIError.usage("bad")) == .usage)
        #expect(Runner.describe(problem(409, .insufficientFunds)).1 == "Detail.")
    }
}

/// --json prints what the server sent: a member it sent as null stays null.
@Suite struct JSONOutputTests {
    @Test func nullsTheServerSentArePrinted() throws {
        let said = #"{"avatar_version":null,"display_name":"Ada","has_avatar":false,"id":"8a1c1c1e-0000-4000-8000-00000000000a"}"#
        let card = try JSONDecoder().decode(UserCard.self, from: Data(said.utf8))
        let line = try #require(JSONText.line(card))
        #expect(String(decoding: line, as: UTF8.self) == said)
    }
}

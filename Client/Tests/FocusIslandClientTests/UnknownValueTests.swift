// docs/versioning.md: a new enum value, a new problem code and a new answer field are minor, so
// the client keeps what it does not know instead of failing to decode the whole answer.
import FocusIslandClient
import Foundation
import Testing

@Suite struct UnknownValueTests {
    /// Every generated enum: each known value round-trips, and an unknown one is kept as `unknown`.
    @Test func everyEnumKeepsAnUnknownValue() throws {
        func roundTrip<E: RawRepresentable & Codable & Equatable & CaseIterable>(_: E.Type, unknown: E)
            throws -> [String] where E.RawValue == String
        {
            var seen: [String] = []
            for value in E.allCases {
                let decoded = try JSONDecoder().decode([E].self, from: Data("[\"\(value.rawValue)\"]".utf8))
                #expect(decoded == [value])
                seen.append(value.rawValue)
            }
            let future = try JSONDecoder().decode([E].self, from: Data("[\"from_the_future\"]".utf8))
            #expect(future == [unknown])
            #expect(String(decoding: try JSONEncoder().encode(future), as: UTF8.self) == "[\"from_the_future\"]")
            #expect(!E.allCases.contains(unknown))
            return seen
        }
        #expect(try roundTrip(ItemKind.self, unknown: .unknown("from_the_future")) == ["pet", "sound", "furniture"])
        #expect(try roundTrip(Rating.self, unknown: .unknown("from_the_future")) == ["good", "fine", "bad"])
        #expect(try roundTrip(ReportReason.self, unknown: .unknown("from_the_future")).count == 5)
        #expect(try roundTrip(SessionSource.self, unknown: .unknown("from_the_future")) == ["live", "offline"])
        #expect(try roundTrip(FriendshipStatus.self, unknown: .unknown("from_the_future")) == ["pending", "accepted"])
        #expect(try roundTrip(OriginalRatingLevel.self, unknown: .unknown("from_the_future")) == ["Good", "Fine", "Bad"])
        #expect(try roundTrip(LeaderboardPeriod.self, unknown: .unknown("from_the_future")) == ["daily", "weekly"])
        #expect(try roundTrip(LeaderboardScope.self, unknown: .unknown("from_the_future")) == ["friends", "global"])
    }

    /// An item of a kind this client does not know, with a field it does not know, still decodes.
    @Test func anItemOfANewKindWithANewFieldDecodes() throws {
        let json = """
            {"id": "2eeee5e8-4c34-44e8-6545-8944643294a9", "kind": "plant", "name": "Fern", "description": "Green.",
             "price": 5, "image": "plant/fern.png", "sort_order": 1, "image_url": null, "glows": true}
            """
        let item = try JSONDecoder().decode(Item.self, from: Data(json.utf8))
        #expect(item.kind == .unknown("plant"))
        #expect(item.kind.rawValue == "plant")
        #expect(item.name == "Fern")
    }

    /// A problem with a code this client does not know keeps the code and its status.
    @Test func aProblemWithANewCodeDecodes() throws {
        let json = """
            {"type": "urn:focus-island:problem:a_code_from_the_future", "title": "New", "status": 409,
             "detail": "A rule of a newer server.", "code": "a_code_from_the_future"}
            """
        let problem = try JSONDecoder().decode(Problem.self, from: Data(json.utf8))
        #expect(ProblemCode(rawValue: problem.code) == .unknown("a_code_from_the_future"))
        #expect(problem.status == 409)
    }

    /// An event of a type this client does not know decodes as an Event (its data as JSON).
    @Test func anEventOfANewTypeDecodes() throws {
        let json = """
            {"id": 7, "type": "garden.bloomed", "data": {"flowers": 3}, "created_at": "2026-11-30T08:00:00.000000Z"}
            """
        let event = try JSONDecoder().decode(Event.self, from: Data(json.utf8))
        #expect(event.type == "garden.bloomed")
        #expect(event.id == 7)
    }
}

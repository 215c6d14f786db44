import Testing

@testable import focus

/// The command line's parsing: options anywhere, every command's forms, and the usage errors
/// that stop a malformed command before anything is sent.
@Suite struct CommandLineTests {
    @Test func optionsMayStandAnywhereAndDoubleDashEndsThem() throws {
        let invocation = try Invocation(["me", "--json"])
        #expect(invocation.words == ["me"] && invocation.json && !invocation.follow)
        let follow = try Invocation(["-f", "events"])
        #expect(follow.words == ["events"] && follow.follow)
        let dashed = try Invocation(["friends", "remove", "--", "--json"])
        #expect(dashed.words == ["friends", "remove", "--json"] && !dashed.json)
    }

    @Test func anUnknownOptionIsAUsageError() {
        #expect(throws: CLIError.self) { try Invocation(["--jsn", "me"]) }
        do {
            _ = try Invocation(["--jsn"])
        } catch {
            #expect(error.status == .usage && error.message.contains("--jsn"))
        }
    }

    @Test func everyCommandParses() throws {
        let cases: [([String], Command)] = [
            (["register", "ada@example.com"], .register(email: "ada@example.com", displayName: nil)),
            (["register", "ada@example.com", "Ada L"], .register(email: "ada@example.com", displayName: "Ada L")),
            (["login", "ada@example.com"], .login(email: "ada@example.com")),
            (["logout"], .logout),
            (["me"], .me),
            (["me", "bio", "Early", "riser"], .meBio("Early riser")),
            (["me", "bio", ""], .meBio("")),
            (["shop"], .shop),
            (["buy", "potted", "fern"], .buy("potted fern")),
            (["select", "pet", "Mochi", "the", "Cat"], .select(kind: "pet", item: "Mochi the Cat")),
            (["start"], .start(minutes: 25)),
            (["start", "50"], .start(minutes: 50)),
            (["finish"], .finish),
            (["rate", "fine"], .rate("fine")),
            (["friends"], .friends),
            (["friends", "add", "bo@example.com"], .friendsAdd(email: "bo@example.com")),
            (["friends", "accept"], .friendsAccept(nil)),
            (["friends", "accept", "Bo"], .friendsAccept("Bo")),
            (["friends", "decline", "Bo", "B"], .friendsDecline("Bo B")),
            (["friends", "cancel"], .friendsCancel(nil)),
            (["friends", "remove", "Bo"], .friendsRemove("Bo")),
            (["events"], .events),
            (["tips", "sync"], .tipsSync),
            (["room"], .room),
            (["room", "open"], .roomOpen(minutes: 25, invite: [])),
            (["room", "open", "50", "Bo", "Cy"], .roomOpen(minutes: 50, invite: ["Bo", "Cy"])),
            (["room", "open", "Bo"], .roomOpen(minutes: 25, invite: ["Bo"])),
            (["room", "join", "K7M2QX9R"], .roomJoin(code: "K7M2QX9R")),
            (["room", "start"], .roomStart),
        ]
        for (words, command) in cases {
            #expect(try Command(words) == command, "focus \(words.joined(separator: " "))")
        }
    }

    @Test func malformedCommandsAreUsageErrors() {
        let cases: [[String]] = [
            [], ["frobnicate"], ["register"], ["login"], ["login", "a@b.c", "extra"], ["me", "extra"], ["me", "bio"], ["buy"],
            ["select", "dragon", "Ember"], ["select", "pet"], ["start", "0"], ["start", "181"], ["start", "ten"],
            ["rate"], ["rate", "meh"], ["friends", "add"], ["friends", "remove"], ["friends", "poke"],
            ["events", "now"], ["tips"], ["tips", "list"],
            ["room", "open", "0"], ["room", "open", "181"], ["room", "join"], ["room", "join", "A", "B"], ["room", "start", "now"],
            ["room", "leave"],
        ]
        for words in cases {
            do {
                _ = try Command(words)
                Issue.record("focus \(words.joined(separator: " ")) parsed")
            } catch {
                #expect(error.status == .usage, "focus \(words.joined(separator: " "))")
            }
        }
    }

    @Test func helpListsEveryExitStatus() {
        for status in focus.ExitStatus.allCases {
            #expect(Usage.text.contains("  \(status.rawValue)  \(status.meaning)"))
        }
    }
}

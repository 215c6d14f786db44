import FocusIslandClient
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

    @Test func languageTakesATagOrAnAcceptLanguageList() throws {
        let spaced = try Invocation(["--language", "es", "shop"])
        #expect(spaced.words == ["shop"] && spaced.language == "es")
        let joined = try Invocation(["shop", "--language=es-MX, es;q=0.9"])
        #expect(joined.words == ["shop"] && joined.language == "es-MX, es;q=0.9")
        #expect(try Invocation(["shop"]).language == nil)
        for bad in [["shop", "--language"], ["--language=", "shop"], ["--language", "es\r\nX-Evil: 1", "shop"]] {
            #expect(throws: CLIError.self, "\(bad)") { try Invocation(bad) }
        }
    }

    @Test func optionsWithAValueTakeTheNextWordOrWhatFollowsTheEqualsSign() throws {
        let finish = try Invocation(["finish", "--ended-at", "2026-12-01T10:15:00Z"])
        #expect(finish.words == ["finish"] && finish.values == ["ended-at": "2026-12-01T10:15:00Z"])
        try expect(finish.words, is: ["finish"], with: "2026-12-01T10:15:00Z" as String?, options: finish.values)
        let register = try Invocation(["register", "--time-zone=Asia/Tokyo", "ada@example.com", "Ada"])
        #expect(register.words == ["register", "ada@example.com", "Ada"] && register.values == ["time-zone": "Asia/Tokyo"])
        let coded = try Invocation(["register", "ada@example.com", "--code", "01234567"])
        #expect(coded.words == ["register", "ada@example.com"] && coded.values == ["code": "01234567"])
        try expect(
            coded.words, is: ["register"], with: AccountCommands.Registration(email: "ada@example.com", code: "01234567"),
            options: coded.values)
        for arguments in [["finish", "--ended-at"], ["register", "a@b.c", "--time-zone="], ["register", "a@b.c", "--code"]] {
            #expect(throws: CLIError.self, "\(arguments)") { try Invocation(arguments) }
        }
    }

    @Test func anOptionWithAValueGoesWithItsCommandOnly() async {
        #expect(await Runner.run(["me", "--ended-at", "2026-12-01T10:15:00Z"]) == .usage)
        #expect(await Runner.run(["finish", "--time-zone", "Asia/Tokyo"]) == .usage)
        #expect(await Runner.run(["login", "ada@example.com", "--code", "01234567"]) == .usage)
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
        try expect(["register", "ada@example.com"], is: ["register"], with: AccountCommands.Registration(email: "ada@example.com"))
        try expect(
            ["register", "ada@example.com", "Ada L"], is: ["register"],
            with: AccountCommands.Registration(email: "ada@example.com", displayName: "Ada L"))
        try expect(["login", "ada@example.com"], is: ["login"], with: "ada@example.com")
        try expect(["guest"], is: ["guest"], with: AccountCommands.Registration(email: ""))
        try expect(
            ["guest", "Newcomer"], is: ["guest"],
            with: AccountCommands.Registration(email: "", displayName: "Newcomer", timeZone: "Europe/Paris"),
            options: ["time-zone": "Europe/Paris"])
        try expect(["upgrade", "ada@example.com"], is: ["upgrade"], with: "ada@example.com")
        try expect(["consent", "ask", "mum@example.com"], is: ["consent", "ask"], with: "mum@example.com")
        try expect(["consent", "give", "0A1B2C"], is: ["consent", "give"], with: "0A1B2C")
        try expect(["logout"], is: ["logout"])
        try expect(["me"], is: ["me"])
        try expect(["me", "bio", "Early", "riser"], is: ["me", "bio"], with: ProfileChangeBody(bio: "Early riser"))
        try expect(["me", "bio", ""], is: ["me", "bio"], with: ProfileChangeBody(bio: ""))
        try expect(["me", "set", "bio", "Early", "riser"], is: ["me", "set"], with: ProfileChangeBody(bio: "Early riser"))
        try expect(
            ["me", "set", "settings", #"{"show_tip_on_timer":false}"#], is: ["me", "set"],
            with: ProfileChangeBody(settings: .init(showTipOnTimer: false)))
        try expect(["email", "verify", "01234567"], is: ["email", "verify"], with: "01234567")
        try expect(["email", "resend"], is: ["email", "resend"])
        try expect(["push-tokens"], is: ["push-tokens"])
        try expect(["identities"], is: ["identities"])
        try expect(["shop"], is: ["shop"])
        try expect(["buy", "potted", "fern"], is: ["buy"], with: "potted fern")
        try expect(["select", "pet", "Mochi", "the", "Cat"], is: ["select"], with: ShopCommands.Choice(kind: .pet, item: "Mochi the Cat"))
        try expect(["start"], is: ["start"], with: SessionCommands.Plan(minutes: 25))
        try expect(["start", "50"], is: ["start"], with: SessionCommands.Plan(minutes: 50))
        try expect(["finish"], is: ["finish"], with: nil as String?)
        try expect(["rate", "fine"], is: ["rate"], with: Rating.fine)
        try expect(["friends"], is: ["friends"], with: Page())
        try expect(["friend"], is: ["friends"], with: Page())
        try expect(["history"], is: ["history"], with: Page())
        try expect(["stats", "daily"], is: ["stats", "daily"], with: SessionCommands.Days())
        try expect(["stats", "tags"], is: ["stats", "tags"], with: SessionCommands.Days())
        try expect(["friends", "add", "bo@example.com"], is: ["friends", "add"], with: "bo@example.com")
        try expect(["friend", "add", "bo@example.com"], is: ["friends", "add"], with: "bo@example.com")
        try expect(["friends", "accept"], is: ["friends", "accept"], with: nil as String?)
        try expect(["friends", "accept", "Bo"], is: ["friends", "accept"], with: "Bo" as String?)
        try expect(["friends", "accept", ""], is: ["friends", "accept"], with: nil as String?)
        try expect(["friends", "decline", "Bo", "B"], is: ["friends", "decline"], with: "Bo B" as String?)
        try expect(["friends", "cancel"], is: ["friends", "cancel"], with: nil as String?)
        try expect(["friends", "remove", "Bo"], is: ["friends", "remove"], with: "Bo")
        try expect(["events"], is: ["events"], with: false)
        try expect(["events"], is: ["events"], with: true, follow: true)
        try expect(["tips", "sync"], is: ["tips", "sync"])
        try expect(["config"], is: ["config"])
        try expect(["room"], is: ["room"])
        try expect(["rooms"], is: ["room"])
        try expect(["room", "open"], is: ["room", "open"], with: RoomCommands.Plan(minutes: 25, invite: []))
        try expect(["room", "open", "50", "Bo", "Cy"], is: ["room", "open"], with: RoomCommands.Plan(minutes: 50, invite: ["Bo", "Cy"]))
        try expect(["room", "open", "Bo"], is: ["room", "open"], with: RoomCommands.Plan(minutes: 25, invite: ["Bo"]))
        try expect(["room", "join", "K7M2QX9R"], is: ["room", "join"], with: "K7M2QX9R")
        try expect(["room", "start"], is: ["room", "start"])
        try expect(["achievements"], is: ["achievements"], with: nil as String?)
        try expect(["achievements", "Bo", "Lee"], is: ["achievements"], with: "Bo Lee" as String?)
        try expect(["gift"], is: ["gift"])
        try expect(["gifts"], is: ["gift"])
        try expect(["gift", "send", "Bo", "50"], is: ["gift", "send"], with: GiftCommands.Present(friend: "Bo", coins: 50))
        try expect(
            ["gift", "send", "Bo", "Pip", "the", "Fox"], is: ["gift", "send"], with: GiftCommands.Present(friend: "Bo", item: "Pip the Fox")
        )
        try expect(["gift", "accept"], is: ["gift", "accept"], with: nil as String?)
        try expect(["gift", "accept", "3f2a9c1b"], is: ["gift", "accept"], with: "3f2a9c1b" as String?)
        try expect(["gift", "decline", "3f2a9c1b"], is: ["gift", "decline"], with: "3f2a9c1b" as String?)
        try expect(["streak"], is: ["streak"])
        try expect(["streak", "freeze"], is: ["streak", "freeze"])
    }

    @Test func malformedCommandsAreUsageErrors() {
        let cases: [[String]] = [
            [], ["frobnicate"], ["register"], ["login"], ["login", "a@b.c", "extra"], ["me", "extra"], ["me", "bio"], ["me", "set", "bio"],
            ["me", "set", "coins", "999"], ["me", "set", "bio", "true"], ["buy"],
            ["select", "dragon", "Ember"], ["select", "pet"], ["start", "0"], ["start", "181"], ["start", "ten"],
            ["rate"], ["rate", "meh"], ["friends", "add"], ["friends", "remove"], ["friends", "poke"],
            ["events", "now"], ["tips"], ["tips", "list"], ["config", "show"], ["finish", "2026-12-01T10:00:00Z"],
            ["events", "now"], ["tips"], ["tips", "list"], ["history", "all"], ["stats"], ["stats", "weekly"],
            ["events", "now"], ["tips"], ["tips", "list"],
            ["room", "open", "0"], ["room", "open", "181"], ["room", "join"], ["room", "join", "A", "B"], ["room", "start", "now"],
            ["room", "leave"],
            ["gift", "send"], ["gift", "send", "Bo"], ["gift", "send", "Bo", "0"], ["gift", "accept", "a", "b"], ["gift", "return"],
            ["streak", "freezes"], ["streak", "freeze", "2"], ["email"], ["email", "verify"], ["email", "resend", "x"],
            ["friends", "remove", ""], ["guest", "A", "B"], ["upgrade"], ["upgrade", "a@b.c", "x"], ["consent"], ["consent", "ask"],
            ["consent", "give"], ["consent", "give", "a", "b"],
        ]
        for words in cases {
            do {
                _ = try Commands.parse(words)
                Issue.record("focus \(words.joined(separator: " ")) parsed")
            } catch {
                #expect(error.status == .usage, "focus \(words.joined(separator: " "))")
            }
        }
    }

    @Test func valueOptionsReachTheCommandsThatTakeThem() throws {
        let page = try Invocation(["friends", "--limit", "2", "--cursor=WyJmcmllbmRzIl0"])
        #expect(page.words == ["friends"] && page.values == ["limit": "2", "cursor": "WyJmcmllbmRzIl0"])
        try expect(page.words, is: ["friends"], with: Page(limit: 2, cursor: "WyJmcmllbmRzIl0"), options: page.values)
        try expect(["history"], is: ["history"], with: Page(limit: 5), options: ["limit": "5"])
        try expect(
            ["start", "30"], is: ["start"], with: SessionCommands.Plan(minutes: 30, tag: "Deep work"), options: ["tag": "Deep work"])
        try expect(
            ["stats", "daily"], is: ["stats", "daily"], with: SessionCommands.Days(from: "2026-11-23", to: "2026-11-29"),
            options: ["from": "2026-11-23", "to": "2026-11-29"])
        try expect(["shop"], is: ["shop"], options: ["language": "es"])
        #expect(throws: CLIError.self) { try Invocation(["friends", "--limit"]) }
    }

    @Test func valueOptionsAreCheckedBeforeAnythingIsSent() {
        let cases: [([String], [String: String])] = [
            (["friends"], ["limit": "0"]), (["friends"], ["limit": "ten"]), (["history"], ["limit": "-3"]),
            (["stats", "daily"], ["from": "30/11/2026"]), (["stats", "daily"], ["to": "2026-1-1"]),
            (["me"], ["limit": "2"]), (["friends", "add", "bo@example.com"], ["cursor": "x"]), (["finish"], ["tag": "math"]),
            (["start"], ["from": "2026-11-30"]), (["frobnicate"], ["limit": "2"]),
        ]
        for (words, options) in cases {
            do {
                _ = try Commands.parse(words, options: options)
                Issue.record("focus \(words.joined(separator: " ")) \(options) parsed")
            } catch {
                #expect(error.status == .usage, "focus \(words.joined(separator: " ")) \(options)")
            }
        }
    }

    @Test func followGoesWithEventsOnly() async throws {
        _ = try Commands.parse(["events"], follow: true)
        #expect(throws: CLIError.self) { try Commands.parse(["shop"], follow: true) }
        #expect(await Runner.run(["me", "-f"]) == .usage)
    }

    @Test func aWordAfterAGroupNamesItsCommands() {
        do {
            _ = try Commands.parse(["friends", "poke"])
            Issue.record("focus friends poke parsed")
        } catch {
            #expect(error.message == "unknown friends command poke (add, accept, decline, cancel, remove)")
        }
        do {
            _ = try Commands.parse(["frobnicate"])
            Issue.record("focus frobnicate parsed")
        } catch {
            #expect(error.message == "unknown command frobnicate")
        }
        do {
            _ = try Commands.parse(["email", "confirm"])
            Issue.record("focus email confirm parsed")
        } catch {
            #expect(error.message == "usage: focus email verify CODE | focus email resend")
        }
    }

    @Test func theListOfCommandsIsConsistent() {
        let names = Commands.all.map { $0.words.joined(separator: " ") }
        #expect(Set(names).count == names.count, "two commands with the same words")
        for command in Commands.all {
            #expect(!command.words.isEmpty && Commands.aliases[command.words[0]] == nil, "\(command.usage)")
            #expect(Usage.text.contains("  \(command.usage)"), "\(command.usage) is not in --help")
            for option in command.options where option != "follow" {
                #expect(Invocation.valueOptions.contains(option), "--\(option) of \(command.usage) is no option Invocation reads")
            }
        }
    }

    @Test func helpListsEveryExitStatus() {
        for status in focus.ExitStatus.allCases {
            #expect(Usage.text.contains("  \(status.rawValue)  \(status.meaning)"))
        }
    }

    /// The words name the command `command` and its parse read `value`.
    private func expect<Value: Equatable>(
        _ line: [String], is command: [String], with value: Value, options: [String: String] = [:], follow: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let parsed = try Commands.parse(line, options: options, follow: follow)
        #expect(parsed.words == command, "focus \(line.joined(separator: " "))", sourceLocation: sourceLocation)
        #expect(parsed.value as? Value == value, "focus \(line.joined(separator: " ")): \(parsed.value)", sourceLocation: sourceLocation)
    }

    /// The words name `command`, which takes no arguments.
    private func expect(
        _ line: [String], is command: [String], options: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let parsed = try Commands.parse(line, options: options)
        #expect(parsed.words == command, "focus \(line.joined(separator: " "))", sourceLocation: sourceLocation)
    }
}

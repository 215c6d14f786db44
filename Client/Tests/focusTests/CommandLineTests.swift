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
        #expect(finish.words == ["finish"] && finish.endedAt == "2026-12-01T10:15:00Z")
        let register = try Invocation(["register", "--time-zone=Asia/Tokyo", "ada@example.com", "Ada"])
        #expect(register.words == ["register", "ada@example.com", "Ada"] && register.timeZone == "Asia/Tokyo")
        let coded = try Invocation(["register", "ada@example.com", "--code", "01234567"])
        #expect(coded.words == ["register", "ada@example.com"] && coded.code == "01234567" && coded.timeZone == nil)
        #expect(try Command(coded.words, options: coded.values) == .register(email: "ada@example.com", displayName: nil))
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
            (["start"], .start(minutes: 25, tag: nil)),
            (["start", "50"], .start(minutes: 50, tag: nil)),
            (["finish"], .finish),
            (["rate", "fine"], .rate("fine")),
            (["friends"], .friends(Command.Page())),
            (["history"], .history(Command.Page())),
            (["stats", "daily"], .statsDaily(from: nil, to: nil)),
            (["stats", "tags"], .statsTags(from: nil, to: nil)),
            (["friends", "add", "bo@example.com"], .friendsAdd(email: "bo@example.com")),
            (["friends", "accept"], .friendsAccept(nil)),
            (["friends", "accept", "Bo"], .friendsAccept("Bo")),
            (["friends", "decline", "Bo", "B"], .friendsDecline("Bo B")),
            (["friends", "cancel"], .friendsCancel(nil)),
            (["friends", "remove", "Bo"], .friendsRemove("Bo")),
            (["events"], .events),
            (["tips", "sync"], .tipsSync),
            (["config"], .config),
            (["room"], .room),
            (["room", "open"], .roomOpen(minutes: 25, invite: [])),
            (["room", "open", "50", "Bo", "Cy"], .roomOpen(minutes: 50, invite: ["Bo", "Cy"])),
            (["room", "open", "Bo"], .roomOpen(minutes: 25, invite: ["Bo"])),
            (["room", "join", "K7M2QX9R"], .roomJoin(code: "K7M2QX9R")),
            (["room", "start"], .roomStart),
            (["achievements"], .achievements(friend: nil)),
            (["achievements", "Bo", "Lee"], .achievements(friend: "Bo Lee")),
            (["gift"], .gifts),
            (["gift", "send", "Bo", "50"], .giftSend(friend: "Bo", coins: 50, item: nil)),
            (["gift", "send", "Bo", "Pip", "the", "Fox"], .giftSend(friend: "Bo", coins: nil, item: "Pip the Fox")),
            (["gift", "accept"], .giftAccept(id: nil)),
            (["gift", "accept", "3f2a9c1b"], .giftAccept(id: "3f2a9c1b")),
            (["gift", "decline", "3f2a9c1b"], .giftDecline(id: "3f2a9c1b")),
            (["streak"], .streak),
            (["streak", "freeze"], .streakFreeze),
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
            ["events", "now"], ["tips"], ["tips", "list"], ["config", "show"], ["finish", "2026-12-01T10:00:00Z"],
            ["events", "now"], ["tips"], ["tips", "list"], ["history", "all"], ["stats"], ["stats", "weekly"],
            ["events", "now"], ["tips"], ["tips", "list"],
            ["room", "open", "0"], ["room", "open", "181"], ["room", "join"], ["room", "join", "A", "B"], ["room", "start", "now"],
            ["room", "leave"],
            ["gift", "send"], ["gift", "send", "Bo"], ["gift", "send", "Bo", "0"], ["gift", "accept", "a", "b"], ["gift", "return"],
            ["streak", "freezes"], ["streak", "freeze", "2"],
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

    @Test func valueOptionsReachTheCommandsThatTakeThem() throws {
        let page = try Invocation(["friends", "--limit", "2", "--cursor=WyJmcmllbmRzIl0"])
        #expect(page.words == ["friends"] && page.values == ["limit": "2", "cursor": "WyJmcmllbmRzIl0"])
        #expect(try Command(page.words, options: page.values) == .friends(Command.Page(limit: 2, cursor: "WyJmcmllbmRzIl0")))
        #expect(try Command(["history"], options: ["limit": "5"]) == .history(Command.Page(limit: 5)))
        #expect(try Command(["start", "30"], options: ["tag": "Deep work"]) == .start(minutes: 30, tag: "Deep work"))
        #expect(
            try Command(["stats", "daily"], options: ["from": "2026-11-23", "to": "2026-11-29"])
                == .statsDaily(from: "2026-11-23", to: "2026-11-29"))
        #expect(throws: CLIError.self) { try Invocation(["friends", "--limit"]) }
    }

    @Test func valueOptionsAreCheckedBeforeAnythingIsSent() {
        let cases: [([String], [String: String])] = [
            (["friends"], ["limit": "0"]), (["friends"], ["limit": "ten"]), (["history"], ["limit": "-3"]),
            (["stats", "daily"], ["from": "30/11/2026"]), (["stats", "daily"], ["to": "2026-1-1"]),
            (["me"], ["limit": "2"]), (["friends", "add", "bo@example.com"], ["cursor": "x"]), (["finish"], ["tag": "math"]),
            (["start"], ["from": "2026-11-30"]),
        ]
        for (words, options) in cases {
            do {
                _ = try Command(words, options: options)
                Issue.record("focus \(words.joined(separator: " ")) \(options) parsed")
            } catch {
                #expect(error.status == .usage, "focus \(words.joined(separator: " ")) \(options)")
            }
        }
    }

    @Test func helpListsEveryExitStatus() {
        for status in focus.ExitStatus.allCases {
            #expect(Usage.text.contains("  \(status.rawValue)  \(status.meaning)"))
        }
    }
}

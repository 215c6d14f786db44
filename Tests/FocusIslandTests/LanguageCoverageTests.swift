// Every offered language has every text (docs/languages.md, 2026-12-07): each language the
// database offers (app.languages) has a folder of mail templates with every kind (mail/<tag>/),
// of web pages with every page and the sentences of every alert key and problem code a page
// shows (web/<tag>/), and a file of push texts with every key of app.push_types (push/<tag>.json,
// English's too); and what is translated renders in its language, falling back to English.
import Foundation
import Testing

@testable import FocusIsland

@Suite struct LanguageCoverageTests {
    static let root = TestEnvironment.repositoryRoot

    static func offered() throws -> [String] {
        try TestEnvironment.owner().execute("select tag from app.languages where offered order by tag").compactMap { $0[0] }
    }

    static func pushKeys() throws -> [String] {
        // The pushes events send and the scheduled reminders' (app.reminder_types).
        try TestEnvironment.owner().execute(
            "select loc_key from app.push_types union select loc_key from app.reminder_types order by 1"
        ).compactMap { $0[0] }
    }

    static func mailKinds() throws -> Set<String> {
        Set(try TestEnvironment.owner().execute("select kind from app.mail_kinds where retired_on is null").compactMap { $0[0] })
    }

    @Test func everyOfferedLanguageHasEveryMail() throws {
        let templates = try MailTemplates(directory: Self.root + "/mail")
        let offered = try Self.offered()
        #expect(!offered.isEmpty, "the seed offers Spanish")
        // A kind is a template at mail/'s top, and MailTemplates loads each in every language's
        // folder or throws: the kinds are the registry's.
        #expect(Set(templates.kinds) == (try Self.mailKinds()))
        for language in offered {
            #expect(templates.languages.contains(language), "mail/\(language)/ is missing")
        }
    }

    @Test func everyOfferedLanguageHasEveryPageAndSentence() throws {
        let site = try WebSite(directory: Self.root + "/web")
        let pages = Set(site.templates.keys)
        let keys = Set(WebPages.messages.keys).union(WebPages.problemCodes)
        for language in try Self.offered() {
            let translated = Set(site.translations[language]?.keys.map { $0 } ?? [])
            #expect(pages.subtracting(translated).isEmpty, "web/\(language)/ lacks \(pages.subtracting(translated).sorted())")
            let sentences = Set(site.sentences[language]?.keys.map { $0 } ?? [])
            #expect(keys.subtracting(sentences).isEmpty, "web/\(language)/sentences.json lacks \(keys.subtracting(sentences).sorted())")
        }
    }

    @Test func everyLanguageHasEveryPushText() throws {
        let keys = Set(try Self.pushKeys())
        for language in ["en"] + (try Self.offered()) {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/push/\(language).json"))
            let texts = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String], "push/\(language).json")
            #expect(keys.subtracting(texts.keys).isEmpty, "push/\(language).json lacks \(keys.subtracting(texts.keys).sorted())")
            #expect(texts.values.allSatisfy { !$0.isEmpty })
        }
    }

    @Test func aMailRendersInItsLanguageAndEnglishOtherwise() throws {
        let templates = try MailTemplates(directory: Self.root + "/mail")
        let spanish = try templates.render(kind: "password_reset", language: "es", values: ["code": "12345678", "minutes": "15"])
        #expect(spanish.subject == "Tu código para restablecer la contraseña de Focus Island")
        #expect(spanish.text.contains("12345678") && spanish.html.contains("<html lang=\"es\">"))
        let french = try templates.render(kind: "password_reset", language: "fr", values: ["code": "12345678", "minutes": "15"])
        #expect(french.subject == "Your Focus Island password reset code")
    }
}

// MailTemplates: one plain-text and one HTML template per kind of mail (app.outgoing_mail.kind),
// in the repository's mail/ folder: <kind>.txt starts with a `Subject:` line and a blank line,
// <kind>.html is the HTML part. `{{name}}` is replaced by the row's params member `name` (and
// `{{subject}}`, `{{body}}` by its subject and body); in the HTML part every value is
// HTML-escaped (and its line breaks become <br>), so a value can never add markup.
// Those are English; a translation is a folder of the same files named by its language tag
// (mail/es/password_reset.txt, ...), every kind in it, and a mail is rendered in the language
// its row's params name (`language`, app.mail_language), English when that has no folder.
import Foundation

public struct MailTemplateError: Error, CustomStringConvertible, Equatable {
    public let description: String
}

/// A mail ready to be put into MIME: its subject, plain-text part and HTML part.
public struct RenderedMail: Equatable, Sendable {
    public var subject: String
    public var text: String
    public var html: String
}

public struct MailTemplates: Sendable {
    /// The language of the templates at the folder's top.
    public static let fallback = "en"

    struct Template: Sendable {
        var subject: String
        var text: String
        var html: String
    }
    /// By language, then kind.
    let templates: [String: [String: Template]]

    /// The languages it has templates in, English first.
    public var languages: [String] { [Self.fallback] + templates.keys.filter { $0 != Self.fallback }.sorted() }

    /// The kinds it can render: one per `<kind>.txt` at the folder's top. The kinds a mail row
    /// may have are app.mail_kinds' rows; LanguageCoverageTests holds the files to them, so the
    /// list is written once, in the registry.
    public var kinds: [String] { (templates[Self.fallback] ?? [:]).keys.sorted() }

    /// Loads every kind's two files, at the top (English: every `<kind>.txt` there is a kind) and
    /// in each subfolder named as a language tag, which must have the same kinds; a missing or
    /// malformed file stops start-up.
    public init(directory: String) throws(MailTemplateError) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let kinds = entries.filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(".txt".count)) }.sorted()
        var templates = [Self.fallback: try Self.load(directory, kinds: kinds)]
        for name in entries.sorted() where Self.isLanguageTag(name) {
            var isFolder: ObjCBool = false
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            templates[name] = try Self.load(path, kinds: kinds)
        }
        self.templates = templates
    }

    /// `es`, `pt-BR`, `zh-Hant`: the names a translation's folder may have.
    static func isLanguageTag(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    private static func load(_ directory: String, kinds: [String]) throws(MailTemplateError) -> [String: Template] {
        var templates: [String: Template] = [:]
        for kind in kinds {
            let base = (directory as NSString).appendingPathComponent(kind)
            guard let text = try? String(contentsOfFile: base + ".txt", encoding: .utf8),
                let html = try? String(contentsOfFile: base + ".html", encoding: .utf8)
            else {
                throw MailTemplateError(description: "mail templates: \(base).txt and \(base).html must both be readable UTF-8")
            }
            let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count > 2, lines[0].hasPrefix("Subject: "), lines[1].isEmpty else {
                throw MailTemplateError(description: "mail templates: \(base).txt must start with a 'Subject: ' line and a blank line")
            }
            templates[kind] = Template(
                subject: String(lines[0].dropFirst("Subject: ".count)),
                text: lines.dropFirst(2).joined(separator: "\n"), html: html)
        }
        return templates
    }

    /// The mail of `kind` in `language` (English when there is no folder for it) with `values`
    /// filled in. An unknown kind, or a placeholder without a value, is an error (the row cannot
    /// be sent as written).
    public func render(kind: String, language: String = fallback, values: [String: String]) throws(MailTemplateError)
        -> RenderedMail
    {
        let inLanguage = templates[language] ?? templates[Self.fallback]
        guard let template = inLanguage?[kind] else { throw MailTemplateError(description: "no template for kind '\(kind)'") }
        let subject = try Self.fill(template.subject, values, kind: kind) { $0 }
        return RenderedMail(
            // A header is one line: any line break or control character in it becomes a space.
            subject: String(String.UnicodeScalarView(subject.unicodeScalars.map { $0.value < 32 || $0.value == 127 ? " " : $0 })),
            text: try Self.fill(template.text, values, kind: kind) { $0 },
            html: try Self.fill(template.html, values, kind: kind) { Self.escapeHTML($0).replacingOccurrences(of: "\n", with: "<br>\n") })
    }

    static func fill(_ template: String, _ values: [String: String], kind: String, escape: (String) -> String)
        throws(MailTemplateError) -> String
    {
        var output = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw MailTemplateError(description: "template \(kind): '{{' without '}}'")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard let value = values[name] else { throw MailTemplateError(description: "template \(kind): no value for {{\(name)}}") }
            output += escape(value)
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    /// &, <, >, " and ' as character references: safe in element content and quoted attributes.
    public static func escapeHTML(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.count)
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

// MailTemplates: one plain-text and one HTML template per kind of mail (app.outgoing_mail.kind),
// in the repository's mail/ folder: <kind>.txt starts with a `Subject:` line and a blank line,
// <kind>.html is the HTML part. `{{name}}` is replaced by the row's params member `name` (and
// `{{subject}}`, `{{body}}` by its subject and body); in the HTML part every value is
// HTML-escaped (and its line breaks become <br>), so a value can never add markup.
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
    /// Every kind app.outgoing_mail's check allows (0024_mail_sender_own_devices.sql, 0034_shared_addresses.sql).
    public static let kinds = ["message", "password_reset", "email_verification", "address_taken", "signup_code", "reminder"]

    struct Template: Sendable {
        var subject: String
        var text: String
        var html: String
    }
    let templates: [String: Template]

    /// Loads every kind's two files; a missing or malformed one stops start-up.
    public init(directory: String) throws(MailTemplateError) {
        var templates: [String: Template] = [:]
        for kind in Self.kinds {
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
        self.templates = templates
    }

    /// The mail of `kind` with `values` filled in. An unknown kind, or a placeholder without a
    /// value, is an error (the row cannot be sent as written).
    public func render(kind: String, values: [String: String]) throws(MailTemplateError) -> RenderedMail {
        guard let template = templates[kind] else { throw MailTemplateError(description: "no template for kind '\(kind)'") }
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

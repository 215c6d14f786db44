// MailMessage: the RFC 5322 text of one mail: headers, then multipart/alternative with the
// plain-text part first and the HTML part last (the richest last, RFC 2046 5.1.4), each UTF-8
// in base64 (lines of 76). Non-ASCII header text is an RFC 2047 encoded word. CRLF throughout.
import Foundation

public enum MailMessage {
    public static func compose(
        from: String, to recipient: String, subject: String, text: String, html: String, messageID: String, date: Date
    ) -> [UInt8] {
        let boundary = "=_focus_" + randomHex(12)
        var lines = [
            "From: " + headerText(from, phrase: true),
            "To: " + recipient.filter { !$0.isNewline && $0 != "\0" },
            "Subject: " + headerText(subject, phrase: false),
            "Date: " + rfc5322Date(date),
            "Message-ID: " + messageID,
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, content) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--" + boundary,
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += base64Lines(Array(content.utf8))
        }
        lines += ["--" + boundary + "--", ""]
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    /// A header value: ASCII as it is; otherwise an encoded word (for `From`, only the display
    /// name is encoded, the address stays as it is).
    static func headerText(_ value: String, phrase: Bool) -> String {
        let clean = value.filter { !$0.isNewline && $0 != "\0" }
        if clean.unicodeScalars.allSatisfy({ $0.isASCII }) { return clean }
        if phrase, clean.hasSuffix(">"), let open = clean.lastIndex(of: "<") {
            let name = clean[..<open].trimmingCharacters(in: .whitespaces)
            return encodedWord(name) + " " + clean[open...]
        }
        return encodedWord(clean)
    }

    static func encodedWord(_ text: String) -> String {
        "=?UTF-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }

    static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let encoded = Data(bytes).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

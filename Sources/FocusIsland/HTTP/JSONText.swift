// JSONText: the little JSON the HTTP layer writes itself (problem bodies, path and query
// parameters). Everything else is built by SQL and passed through as text.

enum JSONText {
    /// A JSON string literal for `text`, escaping what RFC 8259 requires.
    static func quote(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &out)
        return out
    }

    /// `quote(text)` appended to `out` in place: the callers that build one string of several
    /// values (an object, a cache key) grow one buffer instead of joining new strings.
    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        // Most values (tokens, ids, addresses, languages) need no escape: one append of the
        // whole, not one per scalar.
        if !text.withBytes({ $0.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// A JSON object of string values, keys in sorted order.
    static func object(_ fields: [String: String]) -> String {
        var out = ""
        appendObject(fields, to: &out)
        return out
    }

    /// `object(fields)` appended to `out` in place.
    static func appendObject(_ fields: [String: String], to out: inout String) {
        out += "{"
        // One field (a route's language alone) needs no sorted copy.
        let ordered = fields.count < 2 ? Array(fields) : fields.sorted(by: { $0.key < $1.key })
        for (index, field) in ordered.enumerated() {
            if index > 0 { out += "," }
            appendQuoted(field.key, to: &out)
            out += ":"
            appendQuoted(field.value, to: &out)
        }
        out += "}"
    }
}

// JSONText: the little JSON the HTTP layer writes itself (problem bodies, path and query
// parameters). Everything else is built by SQL and passed through as text.

enum JSONText {
    /// A JSON string literal for `text`, escaping what RFC 8259 requires.
    static func quote(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
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
        return out + "\""
    }

    /// A JSON object of string values, keys in sorted order.
    static func object(_ fields: [String: String]) -> String {
        "{"
            + fields.sorted { $0.key < $1.key }.map { quote($0.key) + ":" + quote($0.value) }
            .joined(separator: ",") + "}"
    }
}

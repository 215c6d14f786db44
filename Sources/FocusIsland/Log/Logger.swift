// Logger: one line per event on standard output, as text (key=value) or JSON.
// Each line is written with a single write(2), so lines from worker threads never interleave.
import Glibc

public struct Logger: Sendable {
    public let format: LogFormat

    public init(format: LogFormat) { self.format = format }

    /// `fields` keep their order; values are strings or whole numbers.
    public func log(_ fields: KeyValuePairs<String, LogValue>) {
        var line: String
        switch format {
        case .off:
            return
        case .json:
            line = "{" + fields.map { JSONText.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        case .text:
            line = fields.map { $0.key + "=" + $0.value.text }.joined(separator: " ")
        }
        line += "\n"
        line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
    }

    public func info(_ message: String) { log(["level": "info", "message": .string(message)]) }
    public func error(_ message: String) { log(["level": "error", "message": .string(message)]) }
}

public enum LogValue: Sendable, ExpressibleByStringLiteral {
    case string(String)
    case int(Int)

    public init(stringLiteral value: String) { self = .string(value) }

    var json: String {
        switch self {
        case .string(let text): JSONText.quote(text)
        case .int(let number): String(number)
        }
    }

    var text: String {
        switch self {
        case .int(let number): return String(number)
        case .string(let text):
            let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "=" }
            return plain ? text : JSONText.quote(text)
        }
    }
}

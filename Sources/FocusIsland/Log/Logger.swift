// Logger: one line per event on standard output, as text (key=value) or JSON.
// Each line is written with a single write(2), so lines from worker threads never interleave.
import Glibc

public struct Logger: Sendable {
    public let format: LogFormat

    public init(format: LogFormat) { self.format = format }

    /// One request's line; `fields` keep their order; values are strings or whole numbers.
    /// LOG_FORMAT=off silences these only.
    public func log(_ fields: KeyValuePairs<String, LogValue>) {
        write(fields, as: format)
    }

    /// Start, stop and errors are written even with LOG_FORMAT=off (as text): an operator needs
    /// them, and scripts read the port a PORT=0 server chose from the "listening" line.
    public func info(_ message: String) { write(["level": "info", "message": .string(message)], as: eventFormat) }
    public func error(_ message: String) { write(["level": "error", "message": .string(message)], as: eventFormat) }

    private var eventFormat: LogFormat { format == .off ? .text : format }

    private func write(_ fields: KeyValuePairs<String, LogValue>, as format: LogFormat) {
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
        line.withUTF8 { bytes in _ = Glibc.write(1, bytes.baseAddress, bytes.count) }
    }

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

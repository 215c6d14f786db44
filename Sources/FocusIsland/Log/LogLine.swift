// LogLine: one log line being written into one byte buffer, its `time` first, as text
// (key=value, a value quoted as a JSON string when it is empty or holds a space, a quote, an
// equals sign or a control character) or as one JSON object.

struct LogLine {
    private(set) var bytes: [UInt8] = []
    private let json: Bool
    /// Whether a field is written: the next one is preceded by a separator.
    private var started = false

    /// A line starting with the time now; nil for LOG_FORMAT=off.
    init?(_ format: LogFormat, time: Int64 = LogTime.now()) {
        switch format {
        case .off: return nil
        case .json: json = true
        case .text: json = false
        }
        // The request line's fields and a short message fit without growing it.
        bytes.reserveCapacity(256)
        if json { bytes.append(UInt8(ascii: "{")) }
        key("time")
        if json { bytes.append(UInt8(ascii: "\"")) }
        LogTime.append(time, to: &bytes)
        if json { bytes.append(UInt8(ascii: "\"")) }
    }

    mutating func append(_ name: String, _ value: String) {
        key(name)
        if json || !Self.isPlain(value) {
            quote(value)
        } else {
            bytes.append(contentsOf: value.utf8)
        }
    }

    mutating func append(_ name: String, _ value: Int) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func append(_ name: String, _ value: LogValue) {
        switch value {
        case .string(let text): append(name, text)
        case .int(let number): append(name, number)
        }
    }

    /// Closes the object (JSON) and the line.
    mutating func end() {
        if json { bytes.append(UInt8(ascii: "}")) }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The separator, unless it is the first field (the time), then the key.
    private mutating func key(_ name: String) {
        if started { bytes.append(json ? UInt8(ascii: ",") : UInt8(ascii: " ")) }
        started = true
        if json {
            quote(name)
            bytes.append(UInt8(ascii: ":"))
        } else {
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "="))
        }
    }

    /// A text value that needs no quotes: not empty, and no byte a reader splits or unquotes at.
    static func isPlain(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7f && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") }
    }

    /// `text` as a JSON string (RFC 8259): quote, backslash and control characters escaped;
    /// the rest of its UTF-8 as it is.
    private mutating func quote(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape(byte)
            case UInt8(ascii: "\n"): escape(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): escape(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): escape(UInt8(ascii: "t"))
            case 0..<0x20, 0x7f:
                escape(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0f))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

// JSONKeys: what the HTTP layer reads of a JSON body's form before the body goes to SQL, in one
// pass over its bytes, without building it: a key written twice in one object, and whether a
// body says nothing (empty, or `{}`).
//
// Why duplicates are refused: `{"coins": 1, "coins": 999}` means 999 to PostgreSQL's jsonb
// (the last key wins, silently) and 1 to any reader that keeps the first (a proxy, a log
// reader, a client library): two readers of one request disagreeing is how a check in one lets
// through what the other acts on. So no body with a repeated key reaches SQL (docs/versioning.md).
//
// Keys are compared as jsonb stores them: escapes resolved ("a" and "\u0061" are one key, a
// surrogate pair is its one code point), code point by code point, without Unicode
// normalisation ("é" and "e\u0301" are two keys to jsonb, and so here). Text that is not JSON is
// scanned as far as its form allows; whatever the scan finds there, PostgreSQL refuses the text
// (400 invalid_json), so for every body SQL accepts, the scan is exact.

enum JSONKeys {
    /// A key with the object it is in (objects numbered in the order they open).
    private struct Key: Hashable {
        let object: Int
        let name: [UInt8]
    }

    /// The first key that repeats a key of its own object, at any depth, decoded (its escapes
    /// resolved); nil when there is none or when the text stops being JSON before one is found.
    static func firstDuplicate(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { scan($0) }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var seen = Set<Key>()
        // The open containers, innermost last: an object's number, or -1 for an array.
        var open: [Int] = []
        var objects = 0
        // Right after `{` or an object's `,`: the next string is a key.
        var expectingKey = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                open.append(objects)
                objects += 1
                expectingKey = true
                index += 1
            case UInt8(ascii: "["):
                open.append(-1)
                expectingKey = false
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if open.popLast() == nil { return nil }
                expectingKey = false
                index += 1
            case UInt8(ascii: ","):
                expectingKey = (open.last ?? -1) >= 0
                index += 1
            case UInt8(ascii: "\""):
                if expectingKey, let object = open.last {
                    guard let (name, end) = decodeString(bytes, from: index + 1) else { return nil }
                    if !seen.insert(Key(object: object, name: name)).inserted {
                        return String(decoding: name, as: UTF8.self)
                    }
                    expectingKey = false
                    index = end
                } else {
                    guard let end = skipString(bytes, from: index + 1) else { return nil }
                    index = end
                }
            default:
                index += 1
            }
        }
        return nil
    }

    /// The index after the string's closing quote; `start` is just after its opening one.
    private static func skipString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index + 1
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    /// The string's UTF-8 with its escapes resolved, and the index after its closing quote; nil
    /// for a string that is not JSON (a bad escape, a lone surrogate, no end), which SQL refuses.
    private static func decodeString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> ([UInt8], Int)? {
        var out: [UInt8] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (out, index + 1) }
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4(bytes, at: index) else { return nil }
                index += 4
                var value = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit) {
                    // A high surrogate counts only with the low one right after it.
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                        let low = hex4(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    index += 6
                    value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(unit) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                out.append(contentsOf: String(Character(scalar)).utf8)
            default:
                return nil
            }
        }
        return nil
    }

    /// Four hex digits at `index` as a UTF-16 code unit.
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// True for a body that says nothing: no bytes, JSON white space only, or an object without
    /// members (`{}`, white space around and inside allowed).
    static func saysNothing(_ bytes: [UInt8]) -> Bool {
        // Without a copy of the bytes: none (every GET), or only white space around at most one `{}`.
        var rest = bytes[...].drop(while: isWhiteSpace)
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: "{") else { return false }
        rest = rest.dropFirst().drop(while: isWhiteSpace)
        guard rest.first == UInt8(ascii: "}") else { return false }
        return rest.dropFirst().allSatisfy(isWhiteSpace)
    }

    /// RFC 8259's white space: space, tab, line feed, carriage return.
    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

// Helpers: the small functions several parts of the server share, none of them about HTTP or
// SQL: hex both ways (image bodies go to libpq as hex text and come back as bytea text),
// trimming, and the monotonic clock that times requests and the graceful stop.
import Glibc

/// Bytes as lowercase hex digits, two a byte.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8](repeating: 0, count: bytes.count * 2)
    for (index, byte) in bytes.enumerated() {
        out[2 * index] = digits[Int(byte >> 4)]
        out[2 * index + 1] = digits[Int(byte & 0x0f)]
    }
    return String(decoding: out, as: UTF8.self)
}

/// bytea in libpq's text format ("\x" then hex digits) as bytes.
func bytes(fromHex text: String) -> [UInt8] {
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: c - UInt8(ascii: "A") + 10
        }
    }
    let digits = Array(text.utf8.dropFirst(2))
    var out = [UInt8](repeating: 0, count: digits.count / 2)
    for index in out.indices { out[index] = nibble(digits[2 * index]) << 4 | nibble(digits[2 * index + 1]) }
    return out
}

extension StringProtocol {
    /// Drops the characters of `set` from both ends.
    func trimming(_ set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

extension String {
    /// The text without the newlines it ends with (libpq's messages end with one).
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }

    /// `body` over the UTF-8 bytes where they lie: a scan or a copy without walking the UTF-8
    /// view one byte at a time, which cost more than the lookups it served on the request path
    /// (docs/performance.md, "Where /me's time goes"). A native string's bytes are contiguous
    /// already; `withUTF8` makes any other contiguous first.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        var text = self
        return try text.withUTF8(body)
    }
}

/// Microseconds on the monotonic clock: for durations, never for times of day.
public func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

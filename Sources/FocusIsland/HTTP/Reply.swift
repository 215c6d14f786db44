// Reply: one row of what an `api` function returned, read by the route's response kind:
//   api.reply      (status, body, etag, retry_after, code, message)         JSON routes
//   api.file_reply (status, content_type, data, etag, code, message)        file routes
// Route.statement selects the columns in exactly these orders.

struct Reply {
    /// nil means the route's success status.
    var status: Int?
    var body: [UInt8]?
    var contentType: String?
    var etag: String?
    var retryAfter: String?
    /// Set when SQL answered a problem without raising; `extensions` are its extra members.
    var code: String?
    var message: String?
    var extensions: String?

    init?(row: [String?], kind: ResponseKind) {
        guard row.count == 6 else { return nil }
        status = row[0].flatMap { Int($0) }
        code = row[4]
        message = row[5]
        switch kind {
        case .json:
            if code != nil { extensions = row[1] } else { body = row[1].map { Array($0.utf8) } }
            contentType = "application/json"
            etag = row[2]
            retryAfter = row[3]
        case .file:
            contentType = row[1]
            body = row[2].map(bytes(fromHex:))
            etag = row[3]
        }
    }
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

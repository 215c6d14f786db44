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

// Reply: one row of what an `api` function returned, read by the route's response kind, and the
// user the request was signed in as (Route.statement selects it after the reply's columns):
//   api.reply      (status, body, etag, retry_after, code, message)  + user     JSON routes
//   api.file_reply (status, content_type, data, etag, code, message) + user     file routes
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
    /// The id of the user api.authenticate accepted the token of (focus.user_id), for the log
    /// line only; nil for a request that did not sign in.
    var user: String?

    init?(row: [String?], kind: ResponseKind) {
        guard row.count == 7 else { return nil }
        status = row[0].flatMap { Int($0) }
        code = row[4]
        message = row[5]
        user = row[6]
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

// Response: status, headers and body bytes, ready to be written by the server.

public struct Response: Sendable {
    /// Headers every answer carries, whatever made it (2026-12-01): no browser may guess a type
    /// other than Content-Type says (an avatar that is also valid HTML stays an image).
    public static let everyAnswer: [(name: String, value: String)] = [("X-Content-Type-Options", "nosniff")]

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// For the request's log line only, never sent: the problem's code (Problem.response) and
    /// the user SQL signed the request in as (Reply.user, DatabaseError.user).
    public var code: String? = nil
    public var user: String? = nil

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        // Room for what the later stages add (ETag, Cache-Control, X-Request-Id…): the array is
        // made once, not grown and copied at each.
        var all: [(name: String, value: String)] = []
        all.reserveCapacity(8)
        all.append(contentsOf: Self.everyAnswer)
        all.append(contentsOf: headers)
        self.headers = all
        self.body = body
    }

    public static func json(_ status: Int, _ text: String) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    public func header(_ name: String) -> String? {
        headers.first { sameHeaderName($0.name, name) }?.value
    }

    public mutating func setHeader(_ name: String, _ value: String) {
        if headers.contains(where: { sameHeaderName($0.name, name) }) { headers.removeAll { sameHeaderName($0.name, name) } }
        headers.append((name, value))
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Header names compared as HTTP does, ignoring ASCII case, without the two lowercased copies
/// per header that every answer's few lookups used to make. The server writes each name the
/// same way everywhere, so the exact comparison answers most; then the bytes where they lie.
func sameHeaderName(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    if a == b { return true }
    return a.withBytes { a in b.withBytes { b in a.indices.allSatisfy { asciiLower(a[$0]) == asciiLower(b[$0]) } } }
}

private func asciiLower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

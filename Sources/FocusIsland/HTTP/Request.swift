// Request: what the HTTP layer hands to the pipeline, independent of libmicrohttpd,
// so the pipeline can be called in-process by tests.

public struct Request: Sendable {
    public var method: String
    /// Decoded path, without the query string.
    public var path: String
    /// Decoded query arguments; a repeated name keeps its last value.
    public var query: [String: String]
    /// Header values by lower-cased name.
    public var headers: HeaderFields
    public var body: [UInt8]
    /// Set by the server when the body was larger than the route's limit and was not kept.
    public var bodyExceededLimit = false
    /// The client's IP address (nil in-process): the connection's address, or behind a trusted
    /// proxy the one its X-Forwarded-For or Forwarded names (HTTP/ForwardedFor.swift). The
    /// pipeline passes it to SQL as params.client_ip (what it means, login throttling, is
    /// decided there), and the request log may print it.
    public var clientAddress: String?
    /// The address the connection is counted under (PER_IP_CONNECTION_LIMIT): the TCP peer,
    /// or the client a PROXY protocol header announced (Server/ProxyListener.swift).
    public var connectionAddress: String?
    /// The route the server matched from the head (HTTPServer), so the pipeline does not match
    /// it again; nil in-process, where the pipeline matches it itself.
    public var match: RouteMatch?

    public init(
        method: String, path: String, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        var fields = HeaderFields()
        for (name, value) in headers { fields[lowerCased(name)] = value }
        self.headers = fields
        self.body = body
    }

    /// The server's own: `headers` are read by their lower-case names already (HTTPServer), so
    /// they are kept as they are, without the copy the public init makes.
    init(method: String, path: String, query: [String: String], lowerCasedHeaders headers: HeaderFields, body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[lowerCased(name)] }

    /// The token of an `Authorization: Bearer <token>` header.
    public var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        // What every app sends, "Bearer <token>" with nothing around it, is cut without the
        // split, lowercased() and trimming copies of the general case below.
        let utf8 = value.utf8
        if utf8.starts(with: "Bearer ".utf8), let first = utf8.dropFirst(7).first, let last = utf8.last,
            first != 0x20, first != 0x09, last != 0x20, last != 0x09
        {
            return String(value[utf8.index(utf8.startIndex, offsetBy: 7)...])
        }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimming(" \t")
        return token.isEmpty ? nil : token
    }
}

/// A request's headers by lower-case name: a short list searched in order, not a dictionary. A
/// request brings a handful of the headers the pipeline reads and each stage asks for one or two
/// (eight lookups on GET /me): comparing a few short names costs less than hashing the name at
/// every lookup, which was the largest of the server's own costs on /me by instruction counts
/// (docs/performance.md, "Where /me's time goes", 2026-12-07).
public struct HeaderFields: Sendable {
    private var fields: [(name: String, value: String)] = []

    public init() {}

    /// The value under `name` (lower case); setting nil removes it.
    public subscript(name: String) -> String? {
        get {
            for field in fields where field.name == name { return field.value }
            return nil
        }
        set {
            if let index = fields.firstIndex(where: { $0.name == name }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name, newValue))
            }
        }
    }
}

/// A header name in lower case; the name itself when it has no capital letter (the server's own
/// names, and what HTTP/2 clients send), without the copy `lowercased()` makes every time.
private func lowerCased(_ name: String) -> String {
    name.withBytes { $0.contains(where: { (65...90).contains($0) }) } ? name.lowercased() : name
}

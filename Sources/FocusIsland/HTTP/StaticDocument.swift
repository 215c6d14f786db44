// StaticDocument: a file the server reads once at start and serves as it is (the OpenAPI
// document, GET /openapi.json), with an ETag of its bytes, so a client revalidates cheaply.
import Foundation

public struct StaticDocument: Sendable {
    public let bytes: [UInt8]
    public let contentType: String
    /// FNV-1a (64 bits) of the bytes, in hex: changes with any byte, costs nothing to compute.
    public let etag: String

    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        self.etag = String(hash, radix: 16)
    }

    /// Reads `path`; a missing or unreadable file is an error naming it.
    public init(path: String, contentType: String) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
            throw ConfigurationError(variable: "OPENAPI_FILE", reason: "cannot read \(path)")
        }
        self.init(bytes: Array(data), contentType: contentType)
    }

    /// 200 with the bytes, or 304 when If-None-Match holds the ETag. Cached for five minutes,
    /// then revalidated (a deploy may change the document).
    func response(ifNoneMatch: String?) -> Response {
        let tag = "\"" + etag + "\""
        var response = Response(status: 200, body: bytes)
        response.setHeader("Content-Type", contentType)
        response.setHeader("ETag", tag)
        response.setHeader("Cache-Control", "public, max-age=300")
        response.revalidate(ifNoneMatch: ifNoneMatch, tag: tag)
        return response
    }
}

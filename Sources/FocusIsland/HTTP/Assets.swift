// Assets: the repo's assets/ folder, read once at start and served from memory under
// content-hashed names (pet/sprout.png → /assets/pet/sprout.3f2a9c1b4d5e6f70.png) with
// `Cache-Control: public, max-age=31536000, immutable`: a changed file gets a new name, so a
// phone may cache every URL forever. Only names from the table answer: a request path is never
// joined to the file system, so `..`, encoded slashes and absolute paths are plain 404s.
// Which URL an item carries is SQL's (api.item_json from app.assets and app.asset_settings,
// which the server publishes at start through api.assets_publish).
import Foundation

public struct AssetStore: Sendable {
    public struct File: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
    }

    /// Served files by hashed name ("pet/sprout.3f2a9c1b4d5e6f70.png").
    public let files: [String: File]
    /// The seed's key of each file ("pet/sprout.png") → its hashed name.
    public let manifest: [String: String]

    public static let empty = AssetStore(files: [:], manifest: [:])
    /// One year, the longest a cache is asked to keep anything (RFC 9111 practice).
    static let cacheControl = "public, max-age=31536000, immutable"

    init(files: [String: File], manifest: [String: String]) {
        self.files = files
        self.manifest = manifest
    }

    /// Every regular file under `directory` whose relative path is a valid asset key
    /// (lower-case letters, digits, `_ . / -`, as app.shop_items.image allows); others are skipped.
    public init(directory: String) {
        var files: [String: File] = [:]
        var manifest: [String: String] = [:]
        let root = URL(fileURLWithPath: directory).standardizedFileURL.path
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                Self.isKey(relative), let data = FileManager.default.contents(atPath: path)
            else { continue }
            let bytes = [UInt8](data)
            let hashed = Self.hashedName(relative, bytes)
            files[hashed] = File(bytes: bytes, contentType: Self.contentType(relative, bytes))
            manifest[relative] = hashed
        }
        self.init(files: files, manifest: manifest)
    }

    static func isKey(_ key: String) -> Bool {
        !key.isEmpty && !key.hasPrefix(".") && !key.contains("..")
            && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || "_./-".utf8.contains($0) }
    }

    /// "pet/sprout.png" + bytes → "pet/sprout.<16 hex digits of FNV-1a 64>.png".
    static func hashedName(_ key: String, _ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        let hex = String(repeating: "0", count: 16 - digits.count) + digits
        guard let dot = key.lastIndex(of: "."), !key[dot...].contains("/") else { return key + "." + hex }
        return key[..<dot] + "." + hex + key[dot...]
    }

    /// The type the bytes are (a placeholder WAV kept under an .m4a name is audio/wav), else
    /// the type the extension names.
    static func contentType(_ key: String, _ bytes: [UInt8]) -> String {
        if bytes.starts(with: Array("RIFF".utf8)) && bytes.count > 12 && bytes[8..<12].elementsEqual("WAVE".utf8) {
            return "audio/wav"
        }
        return switch key.split(separator: ".").last.map(String.init) {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "m4a": "audio/mp4"
        case "wav": "audio/wav"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// The answer to GET or HEAD /assets/<name>: the file, or 404 problem+json.
    func response(name: String) -> Response {
        guard let file = files[name] else {
            return Problem(404, "not_found", "There is no such asset.").response
        }
        return Response(
            status: 200,
            headers: [("Content-Type", file.contentType), ("Cache-Control", Self.cacheControl)],
            body: file.bytes)
    }

    /// Tells SQL the URL prefix and the hashed names, so item answers carry absolute URLs.
    /// On a connection of its own, closed at once: the pool stays empty until the first request,
    /// as before (a pooled connection opened here would hide a database that refuses new ones).
    public func publish(conninfo: String, baseURL: String) throws(DatabaseError) {
        let connection = try PGConnection(conninfo: conninfo, namedStatements: false)
        defer { connection.close() }
        _ = try connection.execute(
            "select api.assets_publish($1, $2::jsonb)::text", [baseURL, JSONText.object(manifest)])
    }
}

// ReleaseControls: admission by the release controls (api.config_get's answer), in memory. SQL decides
// what the controls are (app.client_platforms, app.release_settings, served by api.config_get);
// the server only reads that answer and holds every request to it before anything else runs:
// an app older than its platform's minimum gets 426 upgrade_required, and maintenance 503
// with Retry-After. It is admission, like the connection and rate limits: asking SQL on every
// request would double each one's round trips for a value that changes a few times a year, so
// the parsed answer is kept in SharedCache beside the cached config answer and dropped with it (a
// config.changed event, a lost listener), so a DBA's `update` holds from the next request on.
//
// The header: `X-Client-Version: <platform>/<version>`, e.g. `ios/1.2.9`. No header is
// admitted (the web pages, the CLI, scripts). A malformed one is 400 invalid_field (field
// X-Client-Version): ignoring it would let a build that writes it wrong slip past its minimum
// unnoticed, where a 400 shows on the first request a developer makes. A platform without a
// row (`web/2.0`) has no minimum. Versions compare as app.client_version_key compares them.
import Foundation

struct ReleaseControls: Sendable, Equatable {
    struct Platform: Sendable, Equatable {
        var minimum: ClientVersion.Key
        var minVersion: String
        var storeURL: String
    }
    var platforms: [String: Platform] = [:]
    /// nil: not in maintenance.
    var maintenance: Maintenance?

    struct Maintenance: Sendable, Equatable {
        var message: String
        var retryAfterSeconds: Int
    }

    /// Reads api.config_get's body; nil when it is not that shape.
    init?(configBody: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(configBody)) as? [String: Any],
            let platforms = object["platforms"] as? [String: Any],
            let maintenance = object["maintenance"] as? [String: Any],
            let active = maintenance["active"] as? Bool
        else { return nil }
        for (name, value) in platforms {
            guard let row = value as? [String: Any], let minVersion = row["min_version"] as? String,
                let storeURL = row["store_url"] as? String, let minimum = ClientVersion.key(minVersion)
            else { return nil }
            self.platforms[name] = Platform(minimum: minimum, minVersion: minVersion, storeURL: storeURL)
        }
        if active {
            guard let message = maintenance["message"] as? String,
                let seconds = maintenance["retry_after_seconds"] as? Int
            else { return nil }
            self.maintenance = Maintenance(message: message, retryAfterSeconds: seconds)
        }
    }

    /// Throws the problem a request from `client` gets, if any. An app below its minimum
    /// learns it first: updating is what it must do, maintenance or not.
    func admit(_ client: ClientVersion?) throws(Problem) {
        if let client, let platform = platforms[client.platform], client.key < platform.minimum {
            throw Problem(
                426, "upgrade_required",
                "This version of the app is no longer supported; update it from the store.",
                extensions: JSONText.object([
                    "platform": client.platform, "min_version": platform.minVersion, "store_url": platform.storeURL,
                ]))
        }
        if let maintenance {
            throw Problem(
                503, "maintenance", maintenance.message, extensions: "{\"retry_after_seconds\":\(maintenance.retryAfterSeconds)}",
                retryAfter: String(maintenance.retryAfterSeconds))
        }
    }
}

/// An `X-Client-Version` header: platform (lower-cased) and version.
struct ClientVersion: Sendable, Equatable {
    /// Three numbers, compared in order; missing parts are 0 ("1.3" is "1.3.0").
    struct Key: Sendable, Equatable, Comparable {
        var parts: [Int]
        static func < (lhs: Key, rhs: Key) -> Bool { lhs.parts.lexicographicallyPrecedes(rhs.parts) }
    }
    var platform: String
    var key: Key

    /// nil without a header; 400 invalid_field for anything but `<platform>/<version>`.
    init?(header: String?) throws(Problem) {
        guard let header else { return nil }
        let parts = header.trimming(" \t").split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = parts[0].utf8.first, Self.isLetter(first),
            parts[0].utf8.count <= 16,
            parts[0].utf8.allSatisfy({ $0 == UInt8(ascii: "-") || Self.isDigit($0) || Self.isLetter($0) }),
            let key = Self.key(parts[1])
        else {
            throw Problem(
                400, "invalid_field", "X-Client-Version must be <platform>/<version>, like ios/1.2.9.",
                extensions: #"{"field":"X-Client-Version"}"#)
        }
        platform = parts[0].lowercased()
        self.key = key
    }

    /// The key of "M[.m[.p]]", each part 1 to 5 digits (app.client_version_key's rule); nil otherwise.
    static func key(_ text: some StringProtocol) -> Key? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard (1...5).contains(part.utf8.count), part.utf8.allSatisfy(isDigit), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        return Key(parts: numbers + Array(repeating: 0, count: 3 - numbers.count))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}

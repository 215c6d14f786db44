// LibraryVersion: the libmicrohttpd versions the event streams' hand-off was verified with.
//
// The hand-off (MHD/EventsEndpoint.swift) relies on two behaviours libmicrohttpd does not
// promise: a response's headers are sent before its content reader is first called, and with
// MHD_USE_TURBO a connection's descriptor is closed without shutdown(), so a duplicate of it
// (the stream writer's) keeps the TCP connection open. Both hold in 0.9.75 (Debian 12's
// libmicrohttpd12 0.9.75-6), where the hand-off was built and where the event and fault
// checks (scripts/test) exercise it; decided 2026-12-01.
// Another version, older or newer, may close the duplicate's connection with its own or
// write the body differently, so the server refuses to start on it, in one line, rather than
// serve streams that end at once: verify the version, then widen `verified`.
// The version is the library actually loaded (MHD_get_version(); 0.9.75 has no
// MHD_get_version_bin()), not the header the server was built with.
import CMicroHTTPD

enum LibraryVersion {
    /// The versions verified, as (major, minor, patch).
    static let verified: ClosedRange<Version> = Version(0, 9, 75)...Version(0, 9, 75)

    /// The loaded library's version text, e.g. "0.9.75".
    static var installed: String {
        guard let text = MHD_get_version() else { return "" }
        return String(cString: text)
    }

    /// Throws, with one line naming the version and the range, unless `text` is a verified version.
    static func check(_ text: String) throws(ServerError) {
        guard let version = Version(text), verified.contains(version) else {
            throw ServerError(
                description:
                    "libmicrohttpd \(text.isEmpty ? "(no version)" : text) is not a version the event streams' hand-off "
                    + "was verified with (\(verified.lowerBound) to \(verified.upperBound)); install one of those")
        }
    }

    struct Version: Comparable, CustomStringConvertible {
        let parts: [Int]

        init(_ major: Int, _ minor: Int, _ patch: Int) { parts = [major, minor, patch] }

        /// "0.9.75" (a fourth number or a suffix is not a version this accepts).
        init?(_ text: String) {
            let numbers = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
            guard numbers.count == 3 else { return nil }
            let parts = numbers.compactMap { $0 }
            guard parts.count == 3, parts.allSatisfy({ $0 >= 0 }) else { return nil }
            self.parts = parts
        }

        static func < (left: Version, right: Version) -> Bool { left.parts.lexicographicallyPrecedes(right.parts) }

        var description: String { parts.map(String.init).joined(separator: ".") }
    }
}

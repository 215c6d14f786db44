// TrustedProxies: TRUSTED_PROXIES, the balancers whose word about a client's address is taken
// (HTTP/ForwardedFor.swift, Server/ProxyListener.swift), as a list of networks.
// The text is comma-separated: `10.0.0.0/8, 2001:db8::/32, 192.0.2.7` (a bare address is one
// host: /32 or /128). A network with bits set past its prefix (`10.0.0.1/8`) is refused rather
// than guessed at: it is either a typo or meant as one host, and trusting a whole /8 by mistake
// lets every address in it choose its own. Decided 2026-12-05.

/// One network: the addresses whose first `prefix` bits equal `address`'s.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let prefix: Int

    /// `a.b.c.d/n`, `x::y/n`, or a bare address (all of its bits); nil when malformed.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let width = address.bytes.count * 8
        var prefix = width
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber),
                parts[1].count <= 3, let bits = Int(parts[1]), bits <= width
            else { return nil }
            prefix = bits
        }
        guard Self.hostBits(of: address.bytes, past: prefix).allSatisfy({ $0 == 0 }) else { return nil }
        self.address = address
        self.prefix = prefix
    }

    /// Whether `candidate` is inside (an IPv4 address is never inside an IPv6 network, nor
    /// the other way round; IPv4-mapped addresses were made IPv4 by IPAddress).
    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        let whole = prefix / 8
        guard candidate.bytes[..<whole] == address.bytes[..<whole] else { return false }
        let rest = prefix % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xff) << (8 - rest)
        return candidate.bytes[whole] & mask == address.bytes[whole] & mask
    }

    public var description: String { "\(address)/\(prefix)" }

    /// The bits past `prefix`, byte by byte (the first one masked).
    private static func hostBits(of bytes: [UInt8], past prefix: Int) -> [UInt8] {
        let whole = prefix / 8
        guard whole < bytes.count else { return [] }
        let keep = UInt8(truncatingIfNeeded: 0xff00 >> (prefix % 8))
        return [bytes[whole] & ~keep] + bytes[(whole + 1)...]
    }
}

/// The trusted networks; empty (the default) trusts no one.
public struct TrustedProxies: Hashable, Sendable {
    public let networks: [IPNetwork]

    public static let none = TrustedProxies(networks: [])

    public init(networks: [IPNetwork]) { self.networks = networks }

    /// TRUSTED_PROXIES' text; the entry that is not an address or network when malformed.
    public init(parsing text: String) throws(MalformedEntry) {
        var networks: [IPNetwork] = []
        if !text.allSatisfy({ $0 == " " || $0 == "\t" }) {
            for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = entry.trimming(" \t")
                guard let network = IPNetwork(trimmed) else { throw MalformedEntry(entry: trimmed) }
                networks.append(network)
            }
        }
        self.networks = networks
    }

    public struct MalformedEntry: Error, Equatable {
        public let entry: String
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func contains(_ address: IPAddress) -> Bool { networks.contains { $0.contains(address) } }
}

// IPAddress: an IPv4 or IPv6 address as its bytes, read from text (inet_pton) or from a socket
// address, made into one, and printed as the server prints a client (inet_ntop). TRUSTED_PROXIES
// (Config/TrustedProxies.swift), X-Forwarded-For and Forwarded (HTTP/ForwardedFor.swift) and
// the PROXY protocol's header (Server/ProxyHeader.swift) all compare addresses as these.
import Glibc

public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    /// From 4 or 16 bytes. An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a dual-stack
    /// socket reports for an IPv4 client) is the IPv4 address it maps, as in the request log.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.bytes = bytes
        case 16: self.bytes = bytes.starts(with: Self.mappedPrefix) ? Array(bytes[12...]) : bytes
        default: return nil
        }
    }

    /// From its text: dotted IPv4 (four decimal parts, nothing else) or IPv6 without brackets,
    /// port or zone. Anything else is nil.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= Int(INET6_ADDRSTRLEN) else { return nil }
        let string = String(text)
        var four = in_addr()
        if inet_pton(AF_INET, string, &four) == 1 {
            self.init(bytes: withUnsafeBytes(of: &four) { Array($0) })
            return
        }
        var sixteen = in6_addr()
        guard inet_pton(AF_INET6, string, &sixteen) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: &sixteen) { Array($0) })
    }

    /// From an AF_INET or AF_INET6 socket address; nil for another family.
    init?(socketAddress address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
            }
            self.init(bytes: bytes)
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
            }
            self.init(bytes: bytes)
        default: return nil
        }
    }

    /// As a socket address of its family, port 0, and that address's length.
    var socketAddress: (storage: sockaddr_storage, length: socklen_t) {
        var storage = sockaddr_storage()
        if isIPv4 {
            var four = sockaddr_in()
            four.sin_family = sa_family_t(AF_INET)
            withUnsafeMutableBytes(of: &four.sin_addr) { $0.copyBytes(from: bytes) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: four, as: sockaddr_in.self) }
            return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
        var six = sockaddr_in6()
        six.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &six.sin6_addr) { $0.copyBytes(from: bytes) }
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: six, as: sockaddr_in6.self) }
        return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
    }

    public var description: String {
        // IPv4, every request's: printed by hand into 15 bytes on the stack, which the String
        // keeps inline (no allocation), instead of inet_ntop's sprintf and two arrays.
        if isIPv4 {
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { text in
                var count = 0
                func put(_ byte: UInt8) {
                    text[count] = byte
                    count += 1
                }
                for (index, byte) in bytes.enumerated() {
                    if index > 0 { put(UInt8(ascii: ".")) }
                    if byte >= 100 { put(UInt8(ascii: "0") + byte / 100) }
                    if byte >= 10 { put(UInt8(ascii: "0") + byte / 10 % 10) }
                    put(UInt8(ascii: "0") + byte % 10)
                }
                return String(decoding: UnsafeBufferPointer(rebasing: text[..<count]), as: UTF8.self)
            }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let printed = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard printed != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
}

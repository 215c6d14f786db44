// ProxyHeader: the PROXY protocol's version 2 header (haproxy's `send-proxy-v2`), which a
// balancer writes before the first byte of the client's own (Server/ProxyListener.swift):
//
//   12 bytes   the signature \r\n\r\n\0\r\nQUIT\n
//    1 byte    version (high nibble, 2) and command (low: 0 LOCAL, 1 PROXY)
//    1 byte    address family (high: 1 AF_INET, 2 AF_INET6) and transport (low: 1 STREAM)
//    2 bytes   the length of what follows, network order
//   then       source and destination address, source and destination port (12 bytes for
//              IPv4, 36 for IPv6), then TLVs up to the length, which are skipped
//
// PROXY names the client's address; LOCAL (haproxy's health checks) says the connection is the
// balancer's own, whatever address block follows. Anything else (version 1's text, another
// version or command, UDP, UNIX sockets, an unspecified family with PROXY) is refused: the
// listener then closes the connection. Version 1 is not read: a listener takes one version,
// and haproxy sends v2 with `send-proxy-v2`. Decided 2026-12-05.

enum ProxyHeader: Equatable {
    /// A complete header of `length` bytes: the client's address, or nil for LOCAL.
    case complete(client: IPAddress?, length: Int)
    /// Valid so far; at least `needed` bytes in all are required to decide.
    case incomplete(needed: Int)
    /// Not a header this listener takes; the reason is for the log.
    case refused(String)

    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// Signature, version and command, family and transport, length.
    static let fixedLength = 16
    /// The longest header taken: the address block and haproxy's TLVs (ALPN, authority, SSL
    /// details, a unique id) fit many times over; anything longer is refused, not buffered.
    static let maximumLength = 4096

    /// Reads the header at the start of `bytes`, which may hold less than a whole header
    /// (then `incomplete`) but is never read past the header's own length.
    static func parse(_ bytes: some Collection<UInt8>) -> ProxyHeader {
        let bytes = Array(bytes.prefix(maximumLength + 1))
        let signed = min(bytes.count, signature.count)
        guard bytes[..<signed].elementsEqual(signature[..<signed]) else { return .refused("not a PROXY protocol v2 header") }
        guard bytes.count >= fixedLength else { return .incomplete(needed: fixedLength) }
        let version = bytes[12] >> 4, command = bytes[12] & 0x0f
        guard version == 2 else { return .refused("PROXY protocol version \(version), not 2") }
        guard command <= 1 else { return .refused("PROXY protocol command \(command)") }
        let length = fixedLength + (Int(bytes[14]) << 8 | Int(bytes[15]))
        guard length <= maximumLength else { return .refused("PROXY protocol header of \(length) bytes") }
        guard bytes.count >= length else { return .incomplete(needed: length) }
        if command == 0 { return .complete(client: nil, length: length) }
        let family = bytes[13] >> 4, transport = bytes[13] & 0x0f
        guard transport == 1 else { return .refused("PROXY protocol transport \(transport), not STREAM") }
        let addressLength: Int
        switch family {
        case 1: addressLength = 4
        case 2: addressLength = 16
        default: return .refused("PROXY protocol address family \(family), not AF_INET or AF_INET6")
        }
        guard length - fixedLength >= 2 * addressLength + 4 else {
            return .refused("PROXY protocol address block shorter than its family's")
        }
        let source = Array(bytes[fixedLength..<(fixedLength + addressLength)])
        guard let client = IPAddress(bytes: source) else { return .refused("PROXY protocol source address") }
        return .complete(client: client, length: length)
    }
}

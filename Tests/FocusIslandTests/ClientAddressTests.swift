// The client's address behind a balancer, in units (docs/operations.md, "The client's address"):
// TRUSTED_PROXIES' networks, X-Forwarded-For and Forwarded walked from the right, the PROXY
// protocol v2 header, and the per-address count with its reservations. Over HTTP:
// ClientAddressHTTPTests.
import Foundation
import Testing

@testable import FocusIsland

@Suite struct ClientAddressTests {
    static func address(_ text: String) throws -> IPAddress { try #require(IPAddress(text), "\(text)") }
    static func trusted(_ text: String) throws -> TrustedProxies { try TrustedProxies(parsing: text) }

    // MARK: Addresses and networks

    @Test func addressesAreReadAndPrintedAsTheServerPrintsThem() throws {
        #expect(try Self.address("192.0.2.7").bytes == [192, 0, 2, 7])
        #expect(try Self.address("2001:DB8:0:0::1").description == "2001:db8::1")
        #expect(try Self.address("::ffff:192.0.2.7") == Self.address("192.0.2.7"), "IPv4-mapped is the IPv4 it maps")
        for bad in ["", "192.0.2", "192.0.2.256", "192.0.2.7 ", "[::1]", "::1%eth0", "1.2.3.4:80", "localhost", "0x7f.1"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test func networksMatchTheirPrefixOnly() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(try Self.address("10.255.1.2")))
        #expect(!ten.contains(try Self.address("11.0.0.1")))
        #expect(!ten.contains(try Self.address("::a00:1")), "an IPv6 address is never in an IPv4 network")
        #expect(ten.contains(try Self.address("::ffff:10.1.2.3")), "but an IPv4-mapped one is IPv4")
        let odd = try #require(IPNetwork("192.0.2.64/27"))
        #expect(try odd.contains(try Self.address("192.0.2.95")) && !odd.contains(try Self.address("192.0.2.96")))
        #expect(!odd.contains(try Self.address("192.0.2.63")))
        let six = try #require(IPNetwork("2001:db8::/33"))
        #expect(try six.contains(try Self.address("2001:db8:7fff::1")) && !six.contains(try Self.address("2001:db8:8000::1")))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(try Self.address("203.0.113.9")))
        let host = try #require(IPNetwork("127.0.0.1"))
        #expect(try host.prefix == 32 && host.contains(try Self.address("127.0.0.1")) && !host.contains(try Self.address("127.0.0.2")))
        #expect(try #require(IPNetwork("::1")).prefix == 128)
    }

    @Test(arguments: [
        "10.0.0.1/8", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0.0/ 8", "10.0.0.0/08a",
        "hostname", "10.0.0.0 /8", "[::1]", "2001:db8::1/64",
    ])
    func malformedNetworksAreRefused(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func theListIsCommaSeparatedAndEmptyTrustsNoOne() throws {
        let list = try Self.trusted(" 10.0.0.0/8 , 2001:db8::/32,192.0.2.7")
        #expect(list.networks.map(\.description) == ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7/32"])
        #expect(try list.contains(try Self.address("2001:db8::5")) && list.contains(try Self.address("192.0.2.7")))
        #expect(!list.contains(try Self.address("192.0.2.8")))
        #expect(try Self.trusted("").isEmpty && Self.trusted("  ").isEmpty)
        #expect(throws: TrustedProxies.MalformedEntry(entry: "")) { try Self.trusted("10.0.0.0/8,") }
        #expect(throws: TrustedProxies.MalformedEntry(entry: "10.0.0.1/8")) { try Self.trusted("127.0.0.1, 10.0.0.1/8") }
    }

    @Test func theConfigurationNamesTheVariable() throws {
        #expect(try Configuration(environment: [:]).trustedProxies.isEmpty)
        #expect(try Configuration(environment: [:]).proxyProtocolPort == nil)
        let configured = try Configuration(environment: ["TRUSTED_PROXIES": "127.0.0.1/32", "PROXY_PROTOCOL_PORT": "8081"])
        #expect(configured.trustedProxies.networks.map(\.description) == ["127.0.0.1/32"] && configured.proxyProtocolPort == 8081)
        #expect(try Configuration(environment: ["PROXY_PROTOCOL_PORT": ""]).proxyProtocolPort == nil)
        for (environment, variable) in [
            (["TRUSTED_PROXIES": "10.0.0.0/8;192.0.2.0/24"], "TRUSTED_PROXIES"),
            (["TRUSTED_PROXIES": "10.0.0.1/8"], "TRUSTED_PROXIES"),
            (["PROXY_PROTOCOL_PORT": "8081"], "PROXY_PROTOCOL_PORT"),
            (["TRUSTED_PROXIES": "10.0.0.0/8", "PROXY_PROTOCOL_PORT": "8080"], "PROXY_PROTOCOL_PORT"),
            (["TRUSTED_PROXIES": "10.0.0.0/8", "PROXY_PROTOCOL_PORT": "proxy"], "PROXY_PROTOCOL_PORT"),
        ] {
            do {
                _ = try Configuration(environment: environment)
                Issue.record("\(environment) was taken")
            } catch {
                #expect(error.variable == variable, "\(environment)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    // MARK: X-Forwarded-For and Forwarded

    /// The client for a connection from `peer` with these header lines, behind `trusted`.
    static func client(
        _ peer: String = "10.0.0.1", trusted: String = "10.0.0.0/8", forwarded: [String] = [], xForwardedFor: [String] = []
    ) throws -> String {
        try ForwardedFor.client(
            connection: address(peer), forwarded: forwarded, xForwardedFor: xForwardedFor, trusted: Self.trusted(trusted)
        ).description
    }

    @Test func theRightMostUntrustedEntryIsTheClient() throws {
        #expect(try Self.client(xForwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        // What a client wrote itself is left of what the balancer appended: never read.
        #expect(try Self.client(xForwardedFor: ["198.51.100.1, 203.0.113.7"]) == "203.0.113.7")
        // Proxies in TRUSTED_PROXIES are passed over, from the right.
        #expect(try Self.client(xForwardedFor: ["198.51.100.1, 203.0.113.7, 10.1.1.1, 10.2.2.2"]) == "203.0.113.7")
        // Several lines are one list, in order.
        #expect(try Self.client(xForwardedFor: ["198.51.100.1", "203.0.113.7, 10.1.1.1", "10.2.2.2"]) == "203.0.113.7")
        #expect(try Self.client(xForwardedFor: ["203.0.113.7 ,, 10.1.1.1,"]) == "203.0.113.7", "empty elements are skipped")
    }

    @Test func anUntrustedPeersHeadersAreIgnored() throws {
        #expect(try Self.client("192.0.2.1", xForwardedFor: ["203.0.113.7"]) == "192.0.2.1")
        #expect(try Self.client("192.0.2.1", forwarded: ["for=203.0.113.7"]) == "192.0.2.1")
        #expect(try Self.client("10.0.0.1", trusted: "", xForwardedFor: ["203.0.113.7"]) == "10.0.0.1")
        #expect(try Self.client() == "10.0.0.1", "no header: the peer")
    }

    @Test func everyEntryTrustedIsTheLeftMost() throws {
        #expect(try Self.client(xForwardedFor: ["10.9.9.9, 10.1.1.1"]) == "10.9.9.9")
        #expect(try Self.client(forwarded: ["for=10.9.9.9"]) == "10.9.9.9")
    }

    @Test func garbageStopsTheWalkAtTheLastTrustedHop() throws {
        // Nothing left of garbage is read: the nearest hop that is a trusted proxy is the answer.
        #expect(try Self.client(xForwardedFor: ["203.0.113.7, not-an-address"]) == "10.0.0.1")
        #expect(try Self.client(xForwardedFor: ["203.0.113.7, garbage, 10.1.1.1"]) == "10.1.1.1")
        #expect(try Self.client(xForwardedFor: ["203.0.113.7, unknown"]) == "10.0.0.1")
        #expect(try Self.client(xForwardedFor: ["203.0.113.7, 203.0.113.300"]) == "10.0.0.1")
        #expect(try Self.client(xForwardedFor: ["203.0.113.7, 203.0.113.8:http"]) == "10.0.0.1")
        #expect(try Self.client(xForwardedFor: ["garbage, 203.0.113.7"]) == "203.0.113.7", "garbage left of the client is never reached")
    }

    @Test func xForwardedForTakesPortsAndIPv6() throws {
        #expect(try Self.client(xForwardedFor: ["203.0.113.7:4711"]) == "203.0.113.7")
        #expect(try Self.client(xForwardedFor: ["2001:db8::1"]) == "2001:db8::1")
        #expect(try Self.client(xForwardedFor: ["[2001:db8::1]:4711"]) == "2001:db8::1")
        #expect(try Self.client(xForwardedFor: ["[2001:db8::1]"]) == "2001:db8::1")
        #expect(try Self.client(xForwardedFor: ["::ffff:203.0.113.7"]) == "203.0.113.7")
        #expect(try Self.client(trusted: "10.0.0.0/8, 2001:db8:f::/48", xForwardedFor: ["2001:db8::1, 2001:db8:f::2"]) == "2001:db8::1")
        #expect(try Self.client(xForwardedFor: ["[2001:db8::1"]) == "10.0.0.1")
        #expect(try Self.client(xForwardedFor: ["[203.0.113.7]:80"]) == "10.0.0.1", "brackets hold IPv6 only")
    }

    @Test func forwardedIsReadPerRFC7239() throws {
        #expect(try Self.client(forwarded: ["for=203.0.113.7"]) == "203.0.113.7")
        #expect(try Self.client(forwarded: [#"For="[2001:db8:cafe::17]:4711""#]) == "2001:db8:cafe::17")
        #expect(try Self.client(forwarded: [#"for="203.0.113.7:4711";proto=https;by=10.0.0.1"#]) == "203.0.113.7")
        #expect(try Self.client(forwarded: ["proto=https; for=203.0.113.7 ;by=10.0.0.1"]) == "203.0.113.7")
        #expect(try Self.client(forwarded: ["for=198.51.100.1, for=203.0.113.7", "for=10.1.1.1;proto=http"]) == "203.0.113.7")
        // A comma inside a quoted value does not split the element.
        #expect(try Self.client(forwarded: [#"for=203.0.113.7;host="a,b", for=10.1.1.1"#]) == "203.0.113.7")
        #expect(try Self.client(forwarded: [#"for="_hidden:_port""#]) == "10.0.0.1")
    }

    @Test func forwardedUnknownObfuscatedOrMalformedStopsTheWalk() throws {
        for line in [
            "for=unknown", "for=_hidden", #"for="_hidden""#, "proto=https", "for=203.0.113.7;for=198.51.100.1",
            #"for="[2001:db8::1"#, "for=2001:db8::1", #"for="[2001:db8::1]:port""#, "for", "=203.0.113.7", #"for="203.0.113.7"x"#,
        ] {
            #expect(try Self.client(forwarded: ["for=198.51.100.9, " + line]) == "10.0.0.1", "\(line)")
            #expect(try Self.client(forwarded: ["for=198.51.100.9, " + line, "for=10.1.1.1"]) == "10.1.1.1", "\(line)")
        }
    }

    @Test func aBalancersElementAppendedToAClientsMalformedLineIsStillRead() throws {
        // nginx's `$http_forwarded, for=…` and Envoy append to the client's line: the client's
        // unterminated quote must not hide the balancer's element (and with it the client).
        #expect(try Self.client(forwarded: [#"for="x, for=203.0.113.9"#]) == "203.0.113.9")
        #expect(try Self.client(forwarded: [#"for=198.51.100.1;a=", for=203.0.113.9, for=10.1.1.1"#]) == "203.0.113.9")
        // Nothing left of the malformed point is read: only trusted hops after it stop there.
        #expect(try Self.client(forwarded: [#"for=198.51.100.1, a=", for=10.1.1.1"#]) == "10.1.1.1")
    }

    @Test func xForwardedForWinsOverForwarded() throws {
        #expect(try Self.client(forwarded: ["for=198.51.100.1"], xForwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        #expect(try Self.client(forwarded: ["for=198.51.100.1"], xForwardedFor: [" , "]) == "198.51.100.1", "an empty one is absent")
    }

    // MARK: PROXY protocol v2

    /// A header as haproxy's send-proxy-v2 writes it; `client` nil: LOCAL.
    static func proxyHeader(client: String?, tlvs: [UInt8] = []) throws -> [UInt8] {
        guard let client else { return ProxyHeader.signature + [0x20, 0x00, 0x00, UInt8(tlvs.count)] + tlvs }
        let source = try address(client)
        let destination = [UInt8](repeating: 0, count: source.bytes.count)
        let block = source.bytes + destination + [0x12, 0x67, 0x1f, 0x90] + tlvs
        return ProxyHeader.signature + [0x21, source.isIPv4 ? 0x11 : 0x21, UInt8(block.count >> 8), UInt8(block.count & 0xff)]
            + block
    }

    @Test func aProxyHeaderNamesTheClient() throws {
        let four = try Self.proxyHeader(client: "198.51.100.7")
        #expect(four.count == 28)
        #expect(ProxyHeader.parse(four) == .complete(client: try Self.address("198.51.100.7"), length: 28))
        let six = try Self.proxyHeader(client: "2001:db8::7")
        #expect(ProxyHeader.parse(six) == .complete(client: try Self.address("2001:db8::7"), length: 52))
        // TLVs (here ALPN "h2" and a NOOP) are skipped; bytes past the header are not its business.
        let withTLVs = try Self.proxyHeader(client: "198.51.100.7", tlvs: [0x01, 0x00, 0x02, 0x68, 0x32, 0x04, 0x00, 0x01, 0x00])
        #expect(
            ProxyHeader.parse(withTLVs + Array("GET / HTTP/1.1\r\n".utf8))
                == .complete(client: try Self.address("198.51.100.7"), length: 37))
    }

    @Test func localIsTheBalancerItself() throws {
        #expect(ProxyHeader.parse(try Self.proxyHeader(client: nil)) == .complete(client: nil, length: 16))
        // LOCAL with an address block (haproxy may send one): the block is skipped, not read.
        var local = try Self.proxyHeader(client: "198.51.100.7")
        local[12] = 0x20
        #expect(ProxyHeader.parse(local) == .complete(client: nil, length: 28))
    }

    @Test func aTruncatedHeaderAsksForWhatItLacks() throws {
        let header = try Self.proxyHeader(client: "198.51.100.7")
        #expect(ProxyHeader.parse([]) == .incomplete(needed: 16))
        #expect(ProxyHeader.parse(header.prefix(5)) == .incomplete(needed: 16))
        #expect(ProxyHeader.parse(header.prefix(16)) == .incomplete(needed: 28))
        #expect(ProxyHeader.parse(header.prefix(27)) == .incomplete(needed: 28))
    }

    @Test func anythingElseIsRefused() throws {
        let valid = try Self.proxyHeader(client: "198.51.100.7")
        func refused(_ bytes: [UInt8]) -> Bool {
            if case .refused = ProxyHeader.parse(bytes) { return true }
            return false
        }
        #expect(refused(Array("GET / HTTP/1.1\r\n".utf8)), "an HTTP request")
        #expect(refused(Array("PROXY TCP4 198.51.100.7 10.0.0.1 4711 80\r\n".utf8)), "version 1")
        #expect(refused([0x0D, 0x0A, 0x0D, 0x0A, 0x01]), "a bad signature, seen as soon as it differs")
        var edited = valid
        edited[12] = 0x11  // version 1 in the binary form
        #expect(refused(edited))
        edited = valid
        edited[12] = 0x22  // command 2
        #expect(refused(edited))
        edited = valid
        edited[13] = 0x12  // IPv4 over DGRAM
        #expect(refused(edited))
        edited = valid
        edited[13] = 0x31  // AF_UNIX
        #expect(refused(edited))
        edited = valid
        edited[13] = 0x00  // PROXY with AF_UNSPEC
        #expect(refused(edited))
        edited = valid
        edited[13] = 0x21  // says IPv6 with an IPv4-sized block
        #expect(refused(edited))
        edited = valid
        edited[14] = 0x10  // 4,096 + 12 bytes: too long, refused before any of it is read
        #expect(refused(Array(edited.prefix(16))))
        edited = valid
        edited[14] = 0x0f
        edited[15] = 0xf0  // 16 + 4,080 = 4,096: the longest taken
        #expect(ProxyHeader.parse(edited.prefix(16)) == .incomplete(needed: 4096))
    }

    // MARK: The per-address count

    @Test func theCountReservesAtAdmissionAndForgetsWhatNeverStarted() {
        let limit = AddressLimit(limit: 2)
        #expect(limit.admit("192.0.2.1", exempt: false, now: 1_000))
        #expect(limit.admit("192.0.2.1", exempt: false, now: 1_000))
        #expect(!limit.admit("192.0.2.1", exempt: false, now: 1_000), "two admitted, neither started yet")
        #expect(limit.admit("192.0.2.2", exempt: false, now: 1_000), "another address has its own count")
        #expect(limit.admit("10.0.0.1", exempt: true, now: 1_000) && limit.admit("10.0.0.1", exempt: true, now: 1_000))
        #expect(limit.admit("10.0.0.1", exempt: true, now: 1_000), "a trusted proxy is admitted past the limit")
        limit.started("192.0.2.1")
        limit.started("192.0.2.1")
        #expect(limit.count("192.0.2.1") == 2)
        limit.closed("192.0.2.1")
        #expect(limit.admit("192.0.2.1", exempt: false, now: 2_000))
        #expect(!limit.admit("192.0.2.1", exempt: false, now: 2_000))
        // An admission that never started (libmicrohttpd failed it without a word) lapses.
        let later = 2_000 + AddressLimit.reservationLifetime + 1
        #expect(limit.admit("192.0.2.1", exempt: false, now: later))
        #expect(limit.count("192.0.2.1") == 2)
    }
}

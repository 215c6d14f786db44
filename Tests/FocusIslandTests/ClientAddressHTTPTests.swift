// The client's address behind a balancer, end to end (docs/operations.md, "The client's
// address"): servers of their own with TRUSTED_PROXIES=127.0.0.1/32 (this process is the
// balancer) take the address from X-Forwarded-For, from Forwarded, and from a PROXY protocol v2
// header on PROXY_PROTOCOL_PORT; the shared server (TRUSTED_PROXIES empty) ignores a spoofed
// X-Forwarded-For. The address is seen where SQL stores it: a sign-in's address, listed by
// GET /me/export as `sign_in_addresses`. PER_IP_CONNECTION_LIMIT counts a PROXY connection
// under its client's address and never caps a trusted peer. Only loopback addresses are used
// (127.0.0.2 is bound as the source of an untrusted peer). Units: ClientAddressTests.
import Foundation
import Glibc
import Testing

@testable import FocusIsland

@Suite(.serialized) struct ClientAddressHTTPTests {
    /// A server of its own on the tests' database, behind `trusted`, with a PROXY listener.
    static func server(trusted: String = "127.0.0.1/32", perIP: Int = 64) throws -> Application {
        var configuration = try TestServer.running().application.configuration
        configuration.port = 0
        configuration.metricsPort = nil
        configuration.poolSize = 2
        configuration.trustedProxies = try TrustedProxies(parsing: trusted)
        configuration.proxyProtocolPort = 0
        configuration.perIPConnectionLimit = perIP
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        try application.start(publishAssets: false)
        return application
    }

    /// Signs `account` in through `client`, with `headers` and an optional PROXY header, and
    /// returns the addresses its export lists afterwards.
    static func signInAddresses(
        _ account: Account, port: UInt16, headers: [String: String] = [:], prefix: [UInt8] = []
    ) throws -> [String] {
        var headers = headers
        headers["Content-Type"] = "application/json"
        let body = #"{"email":"\#(account.email)","password":"correct horse"}"#
        let login = try HTTPClient(port: port).send("POST", "/auth/login", headers: headers, body: Array(body.utf8), prefix: prefix)
        #expect(login.status == 200, "\(login.text)")
        let export = try Transport.socket.client.send("GET", "/me/export", token: account.token)
        #expect(export.status == 200)
        return (export.json["sign_in_addresses"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
    }

    static func proxyHeader(client: String?) throws -> [UInt8] { try ClientAddressTests.proxyHeader(client: client) }

    // MARK: Forwarding headers

    @Test func aTrustedPeersXForwardedForNamesTheClientAndItsLeftEntriesAreIgnored() throws {
        let application = try Self.server()
        defer { application.stop() }
        let account = try Transport.socket.client.register("xff")
        let addresses = try Self.signInAddresses(
            account, port: application.server.port, headers: ["X-Forwarded-For": "198.51.100.66, 203.0.113.7"])
        #expect(addresses.contains("203.0.113.7"), "\(addresses)")
        #expect(!addresses.contains("198.51.100.66") && !addresses.contains("127.0.0.1"), "\(addresses)")
    }

    @Test func aTrustedPeersForwardedNamesTheClient() throws {
        let application = try Self.server()
        defer { application.stop() }
        let account = try Transport.socket.client.register("forwarded")
        let addresses = try Self.signInAddresses(
            account, port: application.server.port, headers: ["Forwarded": #"for=198.51.100.66, for="[2001:db8::7]:4711";proto=https"#])
        #expect(addresses.contains("2001:db8::7") && !addresses.contains("198.51.100.66"), "\(addresses)")
    }

    @Test func withNoTrustedProxiesASpoofedXForwardedForIsIgnored() throws {
        let account = try Transport.socket.client.register("spoof")
        let addresses = try Self.signInAddresses(
            account, port: TestServer.client().port, headers: ["X-Forwarded-For": "203.0.113.9", "Forwarded": "for=203.0.113.10"])
        #expect(
            addresses.contains("127.0.0.1") && !addresses.contains("203.0.113.9") && !addresses.contains("203.0.113.10"), "\(addresses)")
    }

    // MARK: The PROXY protocol listener

    @Test func aProxyHeaderNamesTheClientAndItsForwardingHeadersAreNotTrusted() throws {
        let application = try Self.server()
        defer { application.stop() }
        let port = try #require(application.server.proxyPort)
        let account = try Transport.socket.client.register("proxied")
        let addresses = try Self.signInAddresses(
            account, port: port, headers: ["X-Forwarded-For": "203.0.113.99"], prefix: try Self.proxyHeader(client: "198.51.100.7"))
        #expect(addresses.contains("198.51.100.7"), "\(addresses)")
        #expect(!addresses.contains("203.0.113.99") && !addresses.contains("127.0.0.1"), "\(addresses)")
        // LOCAL (a health check) is the balancer itself, trusted: its own forwarding header counts.
        let health = try HTTPClient(port: port).send("GET", "/health", prefix: try Self.proxyHeader(client: nil))
        #expect(health.status == 200)
        let local = try Self.signInAddresses(
            account, port: port, headers: ["X-Forwarded-For": "203.0.113.98"], prefix: try Self.proxyHeader(client: nil))
        #expect(local.contains("203.0.113.98"), "\(local)")
    }

    @Test func aConnectionWithoutAHeaderOrFromAnUntrustedPeerIsClosedUnanswered() throws {
        let application = try Self.server()
        defer { application.stop() }
        let port = try #require(application.server.proxyPort)
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        let plain = try RawConnection(port: port)
        plain.send(request)
        #expect(plain.answer() == .closed, "an HTTP request where a PROXY header belongs")
        let stranger = try RawConnection(port: port, from: "127.0.0.2")
        stranger.send(try Self.proxyHeader(client: "198.51.100.7") + request)
        #expect(stranger.answer() == .closed, "127.0.0.2 is not in TRUSTED_PROXIES")
        // A header that never completes is closed at the deadline.
        let slow = try RawConnection(port: port)
        slow.send(Array(try Self.proxyHeader(client: "198.51.100.7").prefix(10)))
        let started = Date()
        #expect(slow.answer(timeout: 10) == .closed)
        #expect(Date().timeIntervalSince(started) < 6, "closed at the 3 s header deadline")
        // Meanwhile the listener still serves.
        #expect(try HTTPClient(port: port).send("GET", "/health", prefix: try Self.proxyHeader(client: "198.51.100.7")).status == 200)
    }

    @Test func anEventStreamThroughTheProxyIsHandedOffAndCountedUnderItsClient() throws {
        let application = try Self.server()
        defer { application.stop() }
        let port = try #require(application.server.proxyPort)
        let account = try Transport.socket.client.register("proxystream")
        let stream = try EventStreamClient(
            port: port, target: "/events", token: account.token, prefix: try Self.proxyHeader(client: "198.51.100.12"))
        #expect(stream.status == 200)
        let writers = try #require(application.server.writers)
        #expect(try eventually { writers.open(from: "198.51.100.12") == 1 })
        // An event of the account's reaches the stream (the writer holds its socket).
        _ = try TestEnvironment.owner().execute(
            "select app.grant_coins($1::uuid, 5, 'client address test')", [account.id])
        #expect(try stream.next(timeout: 10) != nil)
        stream.close()
    }

    // MARK: PER_IP_CONNECTION_LIMIT

    @Test func theCapCountsAProxyConnectionUnderItsClientAndNeverCapsATrustedPeer() throws {
        let application = try Self.server(perIP: 2)
        defer { application.stop() }
        let server = application.server
        let proxyPort = try #require(server.proxyPort)
        let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)

        // Two held connections announced as 198.51.100.7 fill its share; a third is refused,
        // while 198.51.100.8 is counted apart.
        var held: [RawConnection] = []
        for _ in 0..<2 {
            let connection = try RawConnection(port: proxyPort)
            connection.send(try Self.proxyHeader(client: "198.51.100.7"))
            held.append(connection)
        }
        #expect(try eventually { server.addresses.count("198.51.100.7") == 2 })
        let third = try RawConnection(port: proxyPort)
        third.send(try Self.proxyHeader(client: "198.51.100.7") + health)
        #expect(third.answer() == .closed, "a third connection of 198.51.100.7")
        let other = try RawConnection(port: proxyPort)
        other.send(try Self.proxyHeader(client: "198.51.100.8") + health)
        #expect(other.answer().status == 200, "198.51.100.8 has a count of its own")

        // The trusted balancer itself (127.0.0.1) holds more than the cap on the public port.
        for _ in 0..<3 { held.append(try RawConnection(port: server.port)) }
        #expect(try eventually { server.addresses.count("127.0.0.1") >= 3 })
        let fourth = try RawConnection(port: server.port)
        fourth.send(health)
        #expect(fourth.answer().status == 200, "a trusted peer is not capped per address")

        // A direct client outside TRUSTED_PROXIES is capped as before.
        for _ in 0..<2 { held.append(try RawConnection(port: server.port, from: "127.0.0.2")) }
        #expect(try eventually { server.addresses.count("127.0.0.2") == 2 })
        let capped = try RawConnection(port: server.port, from: "127.0.0.2")
        capped.send(health)
        #expect(capped.answer() == .closed, "a third direct connection of 127.0.0.2")
        held.removeAll()
        #expect(try eventually { server.addresses.count("198.51.100.7") == 0 && server.addresses.count("127.0.0.2") == 0 })
    }
}

/// Waits (at most 5 s) until `condition` holds.
private func eventually(_ condition: () throws -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}

/// A TCP connection to 127.0.0.1 from a chosen loopback address, closed when released.
private final class RawConnection {
    let fd: Int32

    init(port: UInt16, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError(description: "socket failed") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw HTTPClientError(description: "connect from \(source) to \(port) failed")
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    enum Answer: Equatable {
        /// Closed (or reset) by the server without a byte.
        case closed
        /// Nothing within the time allowed, and still open.
        case silent
        /// What the server wrote before it closed.
        case text(String)

        /// The HTTP status the text starts with, or 0.
        var status: Int {
            guard case .text(let text) = self, text.hasPrefix("HTTP/1.1 ") else { return 0 }
            return Int(text.dropFirst(9).prefix(3)) ?? 0
        }
    }

    /// Everything the server writes until it closes, waiting at most `timeout` seconds.
    func answer(timeout: Int = 5) -> Answer {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer.prefix(count)
                continue
            }
            let timedOut = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            if received.isEmpty { return timedOut ? .silent : .closed }
            return .text(String(decoding: received, as: UTF8.self))
        }
    }
}

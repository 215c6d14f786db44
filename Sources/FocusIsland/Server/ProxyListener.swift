// ProxyListener: PROXY_PROTOCOL_PORT, the listener for balancers that announce each client with
// a PROXY protocol v2 header (haproxy's `send-proxy-v2`). Like nginx's `listen … proxy_protocol`
// it is a listener of its own: the header is required on every connection here and never
// looked for on the public port, where a client could write one itself.
//
// One thread with an epoll set accepts and reads the headers; every socket is non-blocking,
// so a balancer that is slow to send one never stalls the others:
//   * a connection from outside TRUSTED_PROXIES is closed at once, unread;
//   * each must deliver a whole header (Server/ProxyHeader.swift) within `headerTimeout`, else
//     it is closed; a malformed one is closed as soon as it is seen to be malformed;
//   * exactly the header's bytes are read (its length says how many), never the request after
//     it, and the socket is handed on (`handoff`: HTTPServer gives it to libmicrohttpd with
//     MHD_add_connection) with the client's address as if the client had connected itself:
//     PROXY's source address, or for LOCAL (haproxy's health checks) the balancer's own.
// From there libmicrohttpd serves it as any accepted connection: the accept policy and its
// per-address count, the head deadline, the request's address, the event streams' hand-off.
// `stop` ends the thread before it returns, so nothing is handed on to a daemon that stops.
import CLinux
import Foundation
import Glibc
import Synchronization

final class ProxyListener: Sendable {
    /// Takes over an accepted socket whose header was read, with the client's socket address.
    typealias Handoff = @Sendable (_ socket: Int32, _ client: sockaddr_storage, _ length: socklen_t) -> Void

    /// Microseconds from accept to a complete header: a balancer sends it with its first packet.
    static let headerTimeout: UInt64 = 3_000_000
    /// Connections waiting for their header at most; more are closed at once.
    static let maximumWaiting = 1024

    private let trusted: TrustedProxies
    private let logger: Logger
    private let handoff: Handoff
    private let running = Mutex<Running?>(nil)
    private let boundPort = Atomic<UInt16>(0)

    /// The descriptors of a started listener and the semaphore its thread signals when done.
    private struct Running: @unchecked Sendable {
        let listener: Int32
        let epoll: Int32
        let bell: Int32
        let done: DispatchSemaphore
    }

    init(trusted: TrustedProxies, logger: Logger, handoff: @escaping Handoff) {
        self.trusted = trusted
        self.logger = logger
        self.handoff = handoff
    }

    /// The port actually bound (port 0 asks the kernel to choose).
    var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Listens on `host`:`port` and starts the thread.
    func start(host: String, port: UInt16) throws(ServerError) {
        let (storage, family) = try resolve(host, port)
        let failed = ServerError(description: "could not listen for the PROXY protocol on \(host):\(port)")
        let listener = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw failed }
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = storage
        let length = socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 1024) == 0 else {
            close(listener)
            throw failed
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &actualLength) }
        }
        boundPort.store(Self.port(of: actual), ordering: .releasing)
        // Without its epoll set or its bell the thread would spin or never hear `stop`: refuse to start.
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let bell = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        let watched = [listener, bell].allSatisfy { descriptor in
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: descriptor))
            return epoll >= 0 && bell >= 0 && epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
        }
        guard watched else {
            for descriptor in [listener, epoll, bell] where descriptor >= 0 { close(descriptor) }
            throw failed
        }
        let started = Running(listener: listener, epoll: epoll, bell: bell, done: DispatchSemaphore(value: 0))
        running.withLock { $0 = started }
        let thread = Thread { [self] in
            loop(started)
            started.done.signal()
        }
        thread.name = "proxy-protocol"
        thread.start()
    }

    /// Stops accepting, closes the connections still waiting for their header, and returns once
    /// the thread has ended. Only the first call does anything.
    func stop() {
        let stopping: Running? = running.withLock { value in
            let current = value
            value = nil
            return current
        }
        guard let stopping else { return }
        var one: UInt64 = 1
        _ = write(stopping.bell, &one, 8)
        stopping.done.wait()
    }

    /// A connection waiting for its header: its balancer's address and the bytes read so far.
    private struct Waiting {
        let peer: sockaddr_storage
        let peerLength: socklen_t
        let deadline: UInt64
        var bytes: [UInt8] = []
    }

    private func loop(_ descriptors: Running) {
        var waiting: [Int32: Waiting] = [:]
        var refusals = Refusals()
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        serving: while true {
            let count = epoll_wait(descriptors.epoll, &events, Int32(events.count), 250)
            for event in events.prefix(max(0, Int(count))) {
                let descriptor = event.data.fd
                if descriptor == descriptors.bell { break serving }
                if descriptor == descriptors.listener {
                    acceptAll(descriptors, into: &waiting, refusals: &refusals)
                } else if var connection = waiting[descriptor] {
                    let outcome = readHeader(descriptor, &connection)
                    waiting[descriptor] = connection
                    finish(descriptor, outcome, descriptors, &waiting, &refusals)
                }
            }
            let now = monotonicMicroseconds()
            for (descriptor, connection) in waiting where connection.deadline <= now {
                finish(
                    descriptor, .refused("no whole PROXY protocol header within \(Self.headerTimeout / 1_000_000) s"), descriptors,
                    &waiting, &refusals)
            }
            refusals.report(logger, now: now)
        }
        for descriptor in waiting.keys { close(descriptor) }
        close(descriptors.listener)
        close(descriptors.bell)
        close(descriptors.epoll)
    }

    /// Connections accepted per wake at most, so that a flood of connections (from anywhere, if
    /// the port is reachable) never starves the reading of headers and the deadlines' sweep.
    static let acceptsPerWake = 32

    /// Accepts what the backlog holds, up to `acceptsPerWake`: trusted ones wait for their header.
    private func acceptAll(_ descriptors: Running, into waiting: inout [Int32: Waiting], refusals: inout Refusals) {
        for _ in 0..<Self.acceptsPerWake {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(descriptors.listener, $0, &length) }
            }
            guard accepted >= 0 else {
                let error = errno
                if error == EAGAIN || error == EWOULDBLOCK || error == EINTR || error == ECONNABORTED { return }
                // Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS): the listener stays
                // readable, and epoll would wake this thread at once, again and again. A pause
                // lets connections close; the backlog waits meanwhile.
                refusals.note("accept failed (errno \(error)); pausing 100 ms")
                usleep(100_000)
                return
            }
            _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
            _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
            let address = Self.address(of: peer)
            guard let address, trusted.contains(address) else {
                close(accepted)
                refusals.note("a connection from \(address.map(String.init(describing:)) ?? "an unknown address"), not in TRUSTED_PROXIES")
                continue
            }
            guard waiting.count < Self.maximumWaiting else {
                close(accepted)
                refusals.note("\(Self.maximumWaiting) connections already waiting for their PROXY protocol header")
                continue
            }
            var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, data: epoll_data_t(fd: accepted))
            guard epoll_ctl(descriptors.epoll, EPOLL_CTL_ADD, accepted, &event) == 0 else {
                close(accepted)
                continue
            }
            waiting[accepted] = Waiting(peer: peer, peerLength: length, deadline: monotonicMicroseconds() + Self.headerTimeout)
        }
    }

    private enum Outcome {
        case wait
        case refused(String)
        case header(client: IPAddress?)
    }

    /// Reads what the header still lacks, never more.
    private func readHeader(_ descriptor: Int32, _ connection: inout Waiting) -> Outcome {
        while true {
            switch ProxyHeader.parse(connection.bytes) {
            case .refused(let reason): return .refused(reason)
            case .complete(let client, _): return .header(client: client)
            case .incomplete(let needed):
                var chunk = [UInt8](repeating: 0, count: needed - connection.bytes.count)
                let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    connection.bytes += chunk.prefix(count)
                } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    return .wait
                } else {
                    return .refused("the connection ended before its PROXY protocol header did")
                }
            }
        }
    }

    /// A header read (handed on) or refused (closed): the connection waits no more.
    private func finish(
        _ descriptor: Int32, _ outcome: Outcome, _ descriptors: Running, _ waiting: inout [Int32: Waiting],
        _ refusals: inout Refusals
    ) {
        if case .wait = outcome { return }
        guard let connection = waiting.removeValue(forKey: descriptor) else { return }
        epoll_ctl(descriptors.epoll, EPOLL_CTL_DEL, descriptor, nil)
        switch outcome {
        case .wait: return
        case .refused(let reason):
            close(descriptor)
            refusals.note(reason)
        case .header(let client?):
            let (address, length) = client.socketAddress
            handoff(descriptor, address, length)
        case .header(nil):
            handoff(descriptor, connection.peer, connection.peerLength)
        }
    }

    /// The IP address of an accepted peer.
    private static func address(of storage: sockaddr_storage) -> IPAddress? {
        var storage = storage
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) } }
    }

    /// The port of a bound socket address (IPv4 or IPv6).
    private static func port(of storage: sockaddr_storage) -> UInt16 {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw in
            family == AF_INET6
                ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
        }
    }
}

/// Connections refused, logged at most once a second (a scanner or a misconfigured balancer
/// would otherwise write a line per connection).
private struct Refusals {
    var count = 0
    var last = ""
    var reported: UInt64 = 0

    mutating func note(_ reason: String) {
        count += 1
        last = reason
    }

    mutating func report(_ logger: Logger, now: UInt64) {
        guard count > 0, now &- reported >= 1_000_000 else { return }
        logger.info("proxy protocol: closed \(count) connection(s), the last for \(last)")
        count = 0
        reported = now
    }
}

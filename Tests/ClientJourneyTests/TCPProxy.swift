// TCPProxy: a man in the middle on 127.0.0.1 between the client library and the server, to
// drop connections on purpose and to see what went over the wire (request heads, statuses).
//   dropNextResponses(n)  the next n responses: the request reaches the server and is done,
//                         then the connection is closed before a byte of the answer goes back
//   refuse = true         connections are accepted and closed at once (a network that is down)
//   dropAll()             closes every open connection (a stream dropped mid-way)
//   answerNext(...)       the next requests get these answers from the proxy itself (a 503 from a
//                         load balancer, say) and never reach the server
import Foundation
import Glibc
import Synchronization

final class TCPProxy: @unchecked Sendable {
    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private struct State {
        var responsesToDrop = 0
        var refusing = false
        var open: Set<Int32> = []
        var heads: [String] = []
        var statuses: [Int] = []
        var canned: [[UInt8]] = []
    }
    private let state = Mutex(State())

    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw JourneySetupError(description: "proxy: bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Closes the next `count` answers before they reach the client (after the server made them).
    func dropNextResponses(_ count: Int) { state.withLock { $0.responsesToDrop += count } }

    /// The next requests are answered `status` with this problem and headers, by the proxy.
    func answerNext(_ status: Int, code: String, headers: [String: String] = [:], times: Int = 1) {
        let body =
            #"{"type":"urn:focus-island:problem:\#(code)","title":"\#(code)","status":\#(status),"detail":"From the proxy.","code":"\#(code)"}"#
        var head = "HTTP/1.1 \(status) Problem\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let answer = Array((head + "\r\n" + body).utf8)
        state.withLock { $0.canned += Array(repeating: answer, count: times) }
    }

    var refuse: Bool {
        get { state.withLock { $0.refusing } }
        set { state.withLock { $0.refusing = newValue } }
    }

    /// Closes every connection now.
    func dropAll() {
        state.withLock { state in
            for socket in state.open { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// The request heads (request line and headers) that went through, in order.
    var requestHeads: [String] { state.withLock { $0.heads } }
    /// The statuses of the answers that came back from the server (dropped ones included).
    var responseStatuses: [Int] { state.withLock { $0.statuses } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        dropAll()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            if refuse {
                close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            state.withLock { state in
                state.open.insert(client)
                state.open.insert(upstream)
            }
            let pair = Pair(client, upstream)
            Thread { [self] in pump(from: client, to: upstream, requests: true, pair) }.start()
            Thread { [self] in pump(from: upstream, to: client, requests: false, pair) }.start()
        }
    }

    /// The two sockets of one connection: each pump shuts both down when it ends, the last one
    /// closes them (a closed descriptor's number may be reused at once).
    private final class Pair: @unchecked Sendable {
        let sockets: (Int32, Int32)
        var running = 2
        init(_ first: Int32, _ second: Int32) { sockets = (first, second) }
    }

    private func pump(from source: Int32, to destination: Int32, requests: Bool, _ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var skip = 0  // body bytes of a request the proxy answered itself, still to come
        while true {
            let count = read(source, &buffer, buffer.count)
            if count <= 0 { break }
            var chunk = Array(buffer[0..<count])
            if skip > 0 {
                let skipped = min(skip, chunk.count)
                skip -= skipped
                chunk.removeFirst(skipped)
                if chunk.isEmpty { continue }
            }
            if let text = String(bytes: chunk.prefix(16_384), encoding: .utf8) ?? String(bytes: chunk.prefix(512), encoding: .isoLatin1) {
                if requests, let head = text.components(separatedBy: "\r\n\r\n").first,
                    head.range(of: #"^[A-Z]+ \S+ HTTP/1\.1"#, options: .regularExpression) != nil
                {
                    let answer = state.withLock { state in
                        state.heads.append(head)
                        return state.canned.isEmpty ? nil : state.canned.removeFirst()
                    }
                    if let answer {
                        // Answered here: the request's body is swallowed, whichever reads bring it.
                        let length =
                            head.components(separatedBy: "\r\n")
                            .first { $0.lowercased().hasPrefix("content-length:") }
                            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                        skip = max(0, length - (chunk.count - head.utf8.count - 4))
                        state.withLock { $0.statuses.append(Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0) }
                        if !sendAll(answer, to: source) { break }
                        continue
                    }
                } else if !requests, text.hasPrefix("HTTP/1.1 ") {
                    let status = Int(text.dropFirst(9).prefix(3)) ?? 0
                    let drop = state.withLock { state in
                        state.statuses.append(status)
                        guard state.responsesToDrop > 0 else { return false }
                        state.responsesToDrop -= 1
                        return true
                    }
                    if drop { break }
                }
            }
            if !sendAll(chunk, to: destination) { break }
        }
        let last = state.withLock { state in
            shutdown(source, Int32(SHUT_RDWR))
            shutdown(destination, Int32(SHUT_RDWR))
            pair.running -= 1
            guard pair.running == 0 else { return false }
            state.open.remove(source)
            state.open.remove(destination)
            return true
        }
        if last {
            close(pair.sockets.0)
            close(pair.sockets.1)
        }
    }

    private func sendAll(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { return false }
            written += result
        }
        return true
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

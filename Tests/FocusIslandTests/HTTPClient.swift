// HTTPClient: a small blocking HTTP/1.1 client over a real TCP socket, so tests control every
// byte (no Content-Type added behind our back, oversize and chunked bodies, odd headers).
// It is the socket transport of `Client` (Transport.swift); tests reach it through `Client`
// except where only a socket can say it (chunked bodies).
import Foundation
import Glibc

struct HTTPResult: Sendable {
    let status: Int
    /// Header values by lower-cased name.
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    /// The problem's stable code.
    var code: String? { json["code"] as? String }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

struct HTTPClientError: Error, CustomStringConvertible {
    let description: String
}

struct HTTPClient: Sendable {
    let port: UInt16

    /// Sends a request with exactly `headers`, plus Host, Connection: close and the body's
    /// Content-Length (or Transfer-Encoding: chunked, in 16 KiB chunks). `Client` adds the
    /// token and JSON headers; use this directly only for what needs the socket (chunked bodies,
    /// a PROXY protocol header as `prefix`).
    func send(
        _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8]? = nil,
        chunked: Bool = false, prefix: [UInt8] = []
    ) throws -> HTTPResult {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        var allHeaders = headers
        if let body {
            if chunked { allHeaders["Transfer-Encoding"] = "chunked" } else { allHeaders["Content-Length"] = String(body.count) }
        }
        for (name, value) in allHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var bytes = prefix + Array(head.utf8)
        if let body {
            if chunked {
                var offset = 0
                while offset < body.count {
                    let end = min(offset + 16_384, body.count)
                    bytes += Array((String(end - offset, radix: 16) + "\r\n").utf8) + body[offset..<end] + Array("\r\n".utf8)
                    offset = end
                }
                bytes += Array("0\r\n\r\n".utf8)
            } else {
                bytes += body
            }
        }
        return try exchange(bytes)
    }

    /// Writes raw bytes and reads the whole answer (the server closes after it).
    func exchange(_ request: [UInt8]) throws -> HTTPResult {
        let fd = try loopbackSocket(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The server may answer (413) and close before taking the whole body: stop writing then.
        var written = 0
        while written < request.count {
            let n = request[written...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            written += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        return try parse(response)
    }

    private func parse(_ response: [UInt8]) throws -> HTTPResult {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = response.indices.first(where: { response[$0...].starts(with: separator) }) else {
            throw HTTPClientError(description: "no complete response (\(response.count) bytes)")
        }
        let lines = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HTTPClientError(description: "bad status line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPResult(status: status, headers: headers, body: Array(response[(end + 4)...]))
    }
}

/// A socket connected to 127.0.0.1:`port`, the caller's to close; throws when nothing listens.
func loopbackSocket(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HTTPClientError(description: "socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw HTTPClientError(description: "connect to port \(port) failed")
    }
    return fd
}

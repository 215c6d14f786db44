// EventStreamClient: reads a GET /events stream (text/event-stream) incrementally over a real
// socket, where HTTPClient reads to EOF. It decodes chunked transfer coding, splits SSE frames
// at blank lines, and skips comments (heartbeats); frames without data (`retry:`, a stop's
// retry hint) only set `retry` and `lastEventID`, as an EventSource keeps them.
import Foundation
import Glibc

struct ServerSentEvent: Sendable, Equatable {
    let id: String?
    let type: String?
    let data: String

    /// The event as JSON ({id, type, data, created_at}).
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
}

final class EventStreamClient {
    private let fd: Int32
    let status: Int
    let headers: [String: String]
    /// The body of a refused stream (problem+json), read to EOF.
    private(set) var body: [UInt8] = []
    private var raw: [UInt8] = []
    private var decoded: [UInt8] = []
    private let chunked: Bool
    /// The server closed the stream (EOF), as opposed to nothing arriving in time.
    private(set) var ended = false
    /// The last `retry:` (ms) and `id:` read, whether or not their frame had data.
    private(set) var retry: Int?
    private(set) var lastEventID: String?

    /// Opens GET `target` with Accept: text/event-stream, the token, and `headers`; returns once
    /// the response headers arrived (a refused stream's whole body is read too). `prefix` goes
    /// before the request (a PROXY protocol header: ClientAddressHTTPTests).
    init(port: UInt16, target: String, token: String?, headers: [String: String] = [:], prefix: [UInt8] = []) throws {
        let fd = try loopbackSocket(port: port)
        self.fd = fd
        var head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        _ = (prefix + Array(head.utf8)).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }

        var buffer: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        var end: Int?
        let deadline = Date().addingTimeInterval(10)
        while end == nil {
            guard let bytes = try Self.read(fd, until: deadline) else {
                Glibc.close(fd)
                throw HTTPClientError(description: "no response headers within 10 s")
            }
            buffer += bytes
            end = buffer.indices.first { buffer[$0...].starts(with: separator) }
        }
        let lines = String(decoding: buffer[..<end!], as: UTF8.self).components(separatedBy: "\r\n")
        status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
        chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
        raw = Array(buffer[(end! + 4)...])
        if status != 200 {
            // The connection stays open (keep-alive): read the announced length, not to EOF.
            let length = headers["content-length"].flatMap { Int($0) }
            while length.map({ raw.count < $0 }) ?? true,
                let more = try Self.read(fd, until: Date().addingTimeInterval(5)), !more.isEmpty
            { raw += more }
            decode()
            body = decoded
        }
    }

    deinit { Glibc.close(fd) }

    /// Closes the connection (the server notices at its next write: an event or a heartbeat).
    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    var problemCode: String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["code"] as? String
    }

    /// The next event within `timeout` seconds, or nil (none came, or the stream ended).
    func next(timeout: Double) throws -> ServerSentEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            decode()
            if let event = takeEvent() { return event }
            guard let bytes = try Self.read(fd, until: deadline) else { return nil }
            if bytes.isEmpty {
                ended = true
                return nil
            }
            raw += bytes
        }
    }

    /// Every event arriving within `seconds`.
    func events(for seconds: Double) throws -> [ServerSentEvent] {
        let deadline = Date().addingTimeInterval(seconds)
        var events: [ServerSentEvent] = []
        while let event = try next(timeout: max(0, deadline.timeIntervalSinceNow)) { events.append(event) }
        return events
    }

    /// Bytes that arrived before `deadline`; [] at EOF; nil when none came in time.
    private static func read(_ fd: Int32, until deadline: Date) throws -> [UInt8]? {
        let milliseconds = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n <= 0 ? [] : Array(buffer[0..<n])
    }

    /// Moves whole chunks from `raw` to `decoded` (or everything, without chunked coding).
    private func decode() {
        guard chunked else {
            decoded += raw
            raw = []
            return
        }
        let crlf = Array("\r\n".utf8)
        while let lineEnd = raw.indices.first(where: { raw[$0...].starts(with: crlf) }) {
            let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return }
            let start = lineEnd + 2
            guard raw.count >= start + size + 2 else { return }
            decoded += raw[start..<(start + size)]
            raw.removeFirst(start + size + 2)
            if size == 0 {
                ended = true
                return
            }  // the last chunk: the server ended the stream
        }
    }

    /// One complete frame from `decoded`, skipping frames with no data (comments, retry).
    private func takeEvent() -> ServerSentEvent? {
        let blank = Array("\n\n".utf8)
        while let end = decoded.indices.first(where: { decoded[$0...].starts(with: blank) }) {
            let frame = String(decoding: decoded[..<end], as: UTF8.self)
            decoded.removeFirst(end + 2)
            var id: String?, type: String?, data: [String] = []
            for line in frame.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { continue }
                let (field, value) =
                    line.firstIndex(of: ":").map {
                        (String(line[..<$0]), String(line[line.index(after: $0)...]).trimmingPrefix(" "))
                    } ?? (String(line), "")
                switch field {
                case "id": id = value
                case "event": type = value
                case "data": data.append(value)
                case "retry": retry = Int(value)
                default: break
                }
            }
            if let id { lastEventID = id }
            if !data.isEmpty { return ServerSentEvent(id: id, type: type, data: data.joined(separator: "\n")) }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

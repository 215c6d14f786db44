// Logger: one line per event on standard output, as text (key=value) or JSON, each starting
// with its `time` (LogTime.swift). A request's line says who asked what and how it ended
// (docs/operations.md, "Logs"): never a token, an email, a password or a body.
// Each line is one buffer written with a single write(2), so lines from worker threads never
// interleave, and building it allocates that buffer only.
import Glibc

public struct Logger: Sendable {
    public let format: LogFormat
    /// Where lines go: standard output, or a list a test reads (LogSink.swift).
    let sink: LogSink

    public init(format: LogFormat, sink: LogSink = .standardOutput) {
        self.format = format
        self.sink = sink
    }

    /// A line of `fields` in their order; values are strings or whole numbers.
    /// LOG_FORMAT=off silences these (the senders' per-mail and per-push lines).
    public func log(_ fields: KeyValuePairs<String, LogValue>) {
        guard var line = LogLine(format) else { return }
        for (key, value) in fields { line.append(key, value) }
        write(&line)
    }

    /// A request's line. `route` is the template, never the path (which can hold ids); `code`
    /// the problem's, `user` the id SQL signed the request in as, `client` the address it came
    /// from; each is left out when there is none. LOG_FORMAT=off silences these.
    func request(
        id: String, method: String, route: String, status: Int, microseconds: Int, code: String?, user: String?,
        client: String?
    ) {
        guard var line = LogLine(format) else { return }
        line.append("request_id", id)
        line.append("method", method)
        line.append("route", route)
        line.append("status", status)
        line.append("duration_us", microseconds)
        if let code { line.append("code", code) }
        if let user { line.append("user", user) }
        if let client { line.append("client", client) }
        write(&line)
    }

    /// Start, stop and errors are written even with LOG_FORMAT=off (as text): an operator needs
    /// them, and scripts read the port a PORT=0 server chose from the "listening" line.
    public func info(_ message: String) { event("info", message) }
    public func error(_ message: String) { event("error", message) }

    private func event(_ level: String, _ message: String) {
        guard var line = LogLine(format == .off ? .text : format) else { return }
        line.append("level", level)
        line.append("message", message)
        write(&line)
    }

    private func write(_ line: inout LogLine) {
        line.end()
        switch sink {
        case .standardOutput: line.bytes.withUnsafeBufferPointer { _ = Glibc.write(1, $0.baseAddress, $0.count) }
        case .memory(let lines): lines.append(String(decoding: line.bytes, as: UTF8.self))
        }
    }
}

public enum LogValue: Sendable, ExpressibleByStringLiteral {
    case string(String)
    case int(Int)

    public init(stringLiteral value: String) { self = .string(value) }
}

// LogSink: where a Logger's lines go. Standard output in every process; a test's own server
// may keep them in memory to read what it logged (LogHTTPTests), through the same Logger code.
import Synchronization

public enum LogSink: Sendable {
    case standardOutput
    case memory(LogLines)
}

/// Lines kept in memory, in the order they were written.
public final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line so far, each with its newline.
    public var all: [String] { lines.withLock { $0 } }
}

// events(): the live events (eventsList) as an AsyncSequence. It holds an SSE stream
// (Accept: text/event-stream), reconnects after a drop with Last-Event-ID (the last id it
// handed out, so nothing is missed or repeated), and falls back to long-polling
// (eventsList(after: N, wait: 25), JSON) when a stream cannot be held: the server (or a proxy on
// the way) answers without a stream, the account's streams are all taken (429
// too_many_streams), or streams keep failing before they deliver anything.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `events()` listens.
public struct EventsOptions: Sendable {
    public enum Mode: Sendable {
        /// A stream, falling back to long-polls when a stream cannot be held.
        case automatic
        /// Streams only (reconnecting after drops); a stream that cannot be opened ends the sequence.
        case stream
        /// Long-polls only.
        case longPoll
    }

    public var mode: Mode
    /// Seconds a long-poll waits on the server (at most 60).
    public var pollWait: Int
    /// Streams in a row that fail before delivering anything, after which `.automatic` long-polls.
    public var maxStreamFailures: Int
    /// The wait before reconnecting (the server's `retry:` replaces it); doubled per failure in a row.
    public var reconnectDelay: TimeInterval
    /// A stream silent this long is taken for dead (the server sends a heartbeat every 15 s).
    public var idleTimeout: TimeInterval

    public init(
        mode: Mode = .automatic, pollWait: Int = 25, maxStreamFailures: Int = 3, reconnectDelay: TimeInterval = 1,
        idleTimeout: TimeInterval = 45
    ) {
        self.mode = mode
        self.pollWait = pollWait
        self.maxStreamFailures = maxStreamFailures
        self.reconnectDelay = reconnectDelay
        self.idleTimeout = idleTimeout
    }
}

extension FocusIslandClient {
    /// The caller's events after `after` (an event id, or `Events.next` from `eventsList()`);
    /// nil: from now on. Ends by throwing a final problem (401 after the token is revoked, say);
    /// transient failures are retried for ever. Cancel the task that iterates to stop it: the
    /// sequence then ends without an error.
    public func events(after: Int? = nil, options: EventsOptions = EventsOptions()) -> EventSequence {
        EventSequence(
            stream: AsyncThrowingStream { continuation in
                let task = Task {
                    do {
                        var loop = EventsLoop(client: self, options: options, cursor: after)
                        try await loop.run { continuation.yield($0) }
                        continuation.finish()
                    } catch {
                        let error = FocusIslandError.wrapping(error)
                        if error == .cancelled || Task.isCancelled {
                            continuation.finish()
                        } else {
                            continuation.finish(throwing: error)
                        }
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            })
    }
}

/// What `events()` returns: the events, in order, as an AsyncSequence whose failure is typed
/// (`Failure` is FocusIslandError: `for try await` catches a FocusIslandError where Swift 6's
/// typed AsyncSequence is available; on older OSes the error is `any Error`, always a
/// FocusIslandError). Built on an AsyncThrowingStream, whose own iterator cannot be typed.
public struct EventSequence: AsyncSequence, Sendable {
    // Element and Failure are inferred from Iterator.next() (not declared: `Failure` is newer
    // than macOS 13 and iOS 16, and the compiler handles that for an inferred one).
    let stream: AsyncThrowingStream<Event, any Error>

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Event, any Error>.Iterator

        public mutating func next() async throws(FocusIslandError) -> Event? {
            do {
                return try await base.next()
            } catch {
                throw FocusIslandError.wrapping(error)
            }
        }
    }
}

/// Why a stream cannot be held, so `.automatic` long-polls instead.
struct StreamUnavailable: Error {
    let reason: String
}

struct EventsLoop {
    let client: FocusIslandClient
    let options: EventsOptions
    var cursor: Int?

    mutating func run(_ yield: (Event) -> Void) async throws {
        var polling = options.mode == .longPoll
        var failures = 0
        var delay = options.reconnectDelay
        while true {
            try Task.checkCancellation()
            if polling {
                do {
                    let answer = try await poll()
                    for event in answer.events { yield(event) }
                    cursor = answer.next
                    failures = 0
                    continue
                } catch let error as FocusIslandError where client.retryPolicy.delay(after: error, attempt: 1) != nil {
                    failures += 1
                }
            } else {
                do {
                    let delivered = try await stream(yield, retry: &delay)
                    failures = delivered ? 0 : failures + 1
                } catch let unavailable as StreamUnavailable {
                    guard options.mode == .automatic else {
                        throw FocusIslandError.transport(URLError(.resourceUnavailable, userInfo: ["reason": unavailable.reason]))
                    }
                    polling = true
                    continue
                } catch let error as FocusIslandError {
                    guard client.retryPolicy.delay(after: error, attempt: 1) != nil else { throw error }
                    failures += 1
                }
                if options.mode == .automatic && failures >= options.maxStreamFailures {
                    polling = true
                    continue
                }
            }
            let backoff = min(30, delay * pow(2, Double(max(0, failures - 1))))
            try await Task.sleep(nanoseconds: UInt64(backoff * 1_000_000_000))
        }
    }

    /// One long-poll: `eventsList(after:wait:)` with a timeout past the wait, whatever the
    /// session's own timeout.
    private func poll() async throws -> Events {
        var query = [URLQueryItem(name: "wait", value: String(options.pollWait))]
        if let cursor { query.insert(URLQueryItem(name: "after", value: String(cursor)), at: 0) }
        let request = OperationRequest(
            method: "GET", path: OperationPath.eventsList, query: query, body: nil, contentType: nil, idempotencyKey: nil,
            conditional: false, statuses: [200], timeout: TimeInterval(options.pollWait) + 15)
        return try client.decode(Events.self, from: try await client.send(request))
    }

    /// One stream connection, until it ends. True when it delivered anything (the server's
    /// first `retry:` counts): the connection was held, and a later drop is not a failure to open.
    private mutating func stream(_ yield: (Event) -> Void, retry: inout TimeInterval) async throws -> Bool {
        let after = cursor.map { [URLQueryItem(name: "after", value: String($0))] } ?? []
        var request = URLRequest(url: client.url(OperationPath.eventsList, after))
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let token = client.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let cursor { request.setValue(String(cursor), forHTTPHeaderField: "Last-Event-ID") }
        request.timeoutInterval = options.idleTimeout
        let connection = StreamConnection(request: request, idleTimeout: options.idleTimeout)
        defer { connection.cancel() }
        var parser = ServerSentEvents()
        var delivered = false
        var problemBody = Data()
        var status = 0
        for await chunk in connection.chunks {
            try Task.checkCancellation()
            switch chunk {
            case .response(let response):
                status = response.statusCode
                if status == 200 {
                    let type = response.headers["content-type"] ?? ""
                    guard type.hasPrefix("text/event-stream") else {
                        throw StreamUnavailable(reason: "the answer is \(type), not a stream")
                    }
                }
            case .data(let data):
                guard status == 200 else {
                    problemBody.append(data)
                    continue
                }
                delivered = true
                for message in parser.feed(data) {
                    if let milliseconds = message.retry { retry = max(0.1, Double(milliseconds) / 1000) }
                    guard let data = message.data else {
                        cursor = Self.cursor(after: message, event: nil, current: cursor)
                        continue
                    }
                    let event: Event
                    do {
                        event = try JSONDecoder().decode(Event.self, from: Data(data.utf8))
                    } catch {
                        throw FocusIslandError.decoding(type: "Event", status: 200, description: "\(error)")
                    }
                    yield(event)
                    cursor = Self.cursor(after: message, event: event, current: cursor)
                }
            case .end(let error):
                if status != 0 && status != 200 {
                    let problem = ServerProblem(RawResponse(status: status, headers: [:], body: problemBody))
                    if problem.code == .tooManyStreams { throw StreamUnavailable(reason: "too_many_streams") }
                    throw FocusIslandError.problem(problem)
                }
                if let error = error as? URLError, error.code != .cancelled, !delivered {
                    throw FocusIslandError.transport(error)
                }
                return delivered
            }
        }
        return delivered
    }
}

extension EventsLoop {
    /// Where the next stream resumes after `message`: its `id:`, also without data (WHATWG's
    /// last event ID: a stopping server's last frame is `id:` and `retry:` only, so that a stream
    /// that delivered no event yet resumes where it started), else the event's own id.
    static func cursor(after message: ServerSentMessage, event: Event?, current: Int?) -> Int? {
        message.id.flatMap(Int.init) ?? event?.id ?? current
    }
}

/// One message of an SSE stream.
struct ServerSentMessage: Equatable {
    var id: String?
    var event: String?
    var data: String?
    var retry: Int?
}

/// The text/event-stream parser (the WHATWG rules that matter here): lines end in \n, \r\n or
/// \r; `field: value` (one space after the colon dropped); `:` starts a comment (heartbeats);
/// an empty line ends a message; several `data:` lines join with \n.
struct ServerSentEvents {
    private var buffer: [UInt8] = []
    private var current = ServerSentMessage()
    private var dataLines: [String] = []
    private var sawCR = false

    mutating func feed(_ data: Data) -> [ServerSentMessage] {
        var messages: [ServerSentMessage] = []
        for byte in data {
            if sawCR {
                sawCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                sawCR = byte == UInt8(ascii: "\r")
                if let message = line(String(decoding: buffer, as: UTF8.self)) { messages.append(message) }
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.append(byte)
            }
        }
        return messages
    }

    private mutating func line(_ line: String) -> ServerSentMessage? {
        if line.isEmpty {
            if !dataLines.isEmpty { current.data = dataLines.joined(separator: "\n") }
            defer {
                current = ServerSentMessage()
                dataLines = []
            }
            return current == ServerSentMessage() ? nil : current
        }
        if line.hasPrefix(":") { return nil }
        let name: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            name = Substring(line)
            value = ""
        }
        switch name {
        case "id": current.id = String(value)
        case "event": current.event = String(value)
        case "data": dataLines.append(String(value))
        case "retry": current.retry = Int(value)
        default: break
        }
        return nil
    }
}

/// A streaming request: URLSession's delegate calls, as an AsyncStream (bytes(for:) is not in
/// every Foundation: swift-corelibs-foundation has none).
final class StreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Chunk: Sendable {
        case response(HTTPURLResponse)
        case data(Data)
        case end((any Error)?)
    }

    let chunks: AsyncStream<Chunk>
    private let continuation: AsyncStream<Chunk>.Continuation
    private var session: URLSession?
    private var task: URLSessionDataTask?
    private let announced = Locked(false)

    init(request: URLRequest, idleTimeout: TimeInterval) {
        (chunks, continuation) = AsyncStream<Chunk>.makeStream()
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = 7 * 86_400
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let task = session.dataTask(with: request)
        self.session = session
        self.task = task
        task.resume()
    }

    /// Ends the connection. The URLSession calls go to another queue: cancelling synchronously
    /// can deadlock swift-corelibs-foundation (see FocusIslandClient.fetch).
    func cancel() {
        continuation.finish()
        let (task, session) = (self.task, self.session)
        DispatchQueue.global().async {
            task?.cancel()
            session?.invalidateAndCancel()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        announce(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        announce(dataTask.response)
        continuation.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        announce(task.response)
        continuation.yield(.end(error))
        continuation.finish()
    }

    /// The response, once, before any data: from the response callback when this platform's
    /// signature of it matched, else from the task at the first data or at the end.
    private func announce(_ response: URLResponse?) {
        guard let http = response as? HTTPURLResponse else { return }
        let first = announced.withValue { done in
            defer { done = true }
            return !done
        }
        if first { continuation.yield(.response(http)) }
    }
}

// EventsEndpoint: GET /events at the socket, where a client may wait without holding a thread.
//
//   Accept: text/event-stream   an SSE stream: `api.events_stream_open` checks the token and the
//                               cursor (Last-Event-ID or ?after=) and says the user and their
//                               stream limit; then a content-reader response whose reader
//                               suspends the connection while nothing is pending.
//   anything else               a long-poll: `api.events_list` (GET /events in the route table)
//                               answers at once when there are events or wait is 0; else the
//                               connection is suspended from the access handler until a wake or
//                               `wait` seconds, then asked again and answered with its status.
//
// Why both libmicrohttpd mechanisms: a stream's 200 is queued before its first event, so only
// its content reader can suspend it (the manual allows suspending there when the response is
// not shared); a long-poll has not chosen its status yet, so it suspends from the access
// handler and can still answer 401 or 503 when it wakes. Both are resumed by the same wake
// (Live/EventStreams.swift), and a suspended connection costs no thread, only its memory.
// Swift parses HTTP only: SQL validates the token, the cursor and `wait`, and decides the events.
import CMicroHTTPD
import Foundation

extension HTTPServer {
    /// Events fetched per round trip on a stream; a full batch is followed by another at once.
    static let streamBatch = 100
    /// The reader's block: libmicrohttpd zeroes this much per stream (calloc), so it is kept
    /// small; a longer batch of frames is simply handed over in several calls.
    static let streamBlock = 1024

    func answerEvents(_ connection: OpaquePointer, _ state: RequestState, _ request: Request) -> MHD_Result {
        guard let streams else { return MHD_Result.NO }
        if let client = state.live { return pollAgain(connection, state, request, client) }
        let wantsStream =
            request.header("accept")?.lowercased().contains("text/event-stream") == true
            && request.query["wait"] == nil
        return wantsStream ? openStream(connection, state, request, streams) : openPoll(connection, state, request, streams)
    }

    // MARK: SSE

    private func openStream(
        _ connection: OpaquePointer, _ state: RequestState, _ request: Request,
        _ streams: EventStreams
    ) -> MHD_Result {
        var opening = request
        if let last = request.header("last-event-id") { opening.query["after"] = last }
        let opened: (userID: String, maxStreams: Int, next: String)
        switch open(opening) {
        case .failure(let failure): return finish(connection, request, state, failure.response)
        case .success(let value): opened = value
        }
        let client = LiveClient(
            kind: .stream, userID: opened.userID, token: request.bearerToken ?? "",
            connection: connection, cursor: opened.next,
            deadline: monotonicMicroseconds() + streams.heartbeat * 1_000_000)
        switch streams.register(client, maxStreams: opened.maxStreams) {
        case .added:
            break
        case .stopping:
            return finish(connection, request, state, Problem(503, "shutting_down", "The server is stopping; reconnect.").response)
        case .full:
            let problem = Problem(
                429, "too_many_streams",
                "This account already has \(opened.maxStreams) event streams open here; close one first.")
            var response = problem.response
            response.setHeader("Retry-After", "15")
            return finish(connection, request, state, response)
        }
        state.live = client
        // The first bytes tell browsers to reconnect after 2 s, and get the headers out at once.
        client.pending = Array("retry: 2000\n\n".utf8)
        let context = Unmanaged.passRetained(StreamContext(server: self, client: client)).toOpaque()
        guard let response = MHD_create_response_from_callback(UInt64.max, Self.streamBlock, streamReader, context, streamFree) else {
            Unmanaged<StreamContext>.fromOpaque(context).release()
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", "text/event-stream")
        MHD_add_response_header(response, "Cache-Control", "no-cache")
        MHD_add_response_header(response, "X-Accel-Buffering", "no")
        // A stream that ends (revoked token, server stopping) closes its connection too.
        MHD_add_response_header(response, "Connection", "close")
        pipeline.logRequest(
            request, template: "/events", status: 200, startedAt: state.startedAt,
            requestID: Pipeline.requestID(from: request.header("x-request-id")))
        return MHD_queue_response(connection, 200, response)
    }

    /// One round trip: the events after the stream's cursor as SSE frames in `pending`.
    /// False when the stream must end (its token no longer signs in, or SQL refused the cursor).
    func fetch(into client: LiveClient) -> Bool {
        let parameters = JSONText.object(["after": client.cursor, "limit": String(Self.streamBatch)])
        let rows: [[String?]]
        do {
            rows = try pipeline.pool.withConnection { connection throws(DatabaseError) in
                try connection.executePrepared("events/stream", Self.streamStatement, [client.token, parameters])
            }
        } catch {
            // The database is away: the listener's reconnect (or the next heartbeat) asks again.
            if !error.isConnectionFailure && error.sqlState != DatabaseError.poolTimeoutState {
                // A 4xx from SQL (the token was revoked or expired) ends the stream quietly.
                if !error.sqlState.hasPrefix("PT4") { pipeline.logger.error("/events stream: \(error)") }
                return false
            }
            client.lock.lock()
            client.retry = true
            client.lock.unlock()
            return true
        }
        guard let first = rows.first, first[1] == nil else { return false }
        var frames = ""
        var count = 0
        for row in rows {
            guard let event = row[6] else { continue }
            count += 1
            if let id = row[4] { frames += "id: \(id)\n" }
            if let type = row[5] { frames += "event: \(type)\n" }
            frames += "data: \(event)\n\n"
        }
        if let next = first[3] { client.cursor = next }
        client.pending += Array(frames.utf8)
        if count >= Self.streamBatch { client.wake { $0.dirty = true } }
        return true
    }

    /// events_list's reply, one row per event (one row with no event when there is none).
    static let streamStatement = """
        select r.status, r.code, r.message, r.body->>'next', e.value->>'id', e.value->>'type', e.value::text
        from api.events_list($1, $2::jsonb, '{}'::jsonb) r
        left join lateral jsonb_array_elements(case when r.code is null then r.body->'events' end)
             with ordinality e on true
        order by e.ordinality
        """

    // MARK: Long-poll

    private func openPoll(
        _ connection: OpaquePointer, _ state: RequestState, _ request: Request,
        _ streams: EventStreams
    ) -> MHD_Result {
        let opened: (userID: String, maxStreams: Int, next: String)
        switch open(request) {
        case .failure(let failure): return finish(connection, request, state, failure.response)
        case .success(let value): opened = value
        }
        // SQL validates `wait` (events_list refuses anything but 0 to 60) before anyone waits.
        let wait = UInt64(max(0, min(60, Int(request.query["wait"] ?? "0") ?? 0)))
        let client = LiveClient(
            kind: .poll, userID: opened.userID, token: request.bearerToken ?? "",
            connection: connection, cursor: request.query["after"] ?? opened.next,
            deadline: monotonicMicroseconds() + wait * 1_000_000)
        client.dirty = false
        if wait > 0 && streams.register(client, maxStreams: opened.maxStreams) == .stopping {
            client.closing = true  // answer now: nothing may wait while the server stops
        }
        state.live = client
        return pollAgain(connection, state, request, client)
    }

    /// Asks events_list; answers when it says something (an event, a problem) or the wait is
    /// over, else suspends until a wake. Runs again each time the connection is resumed.
    private func pollAgain(
        _ connection: OpaquePointer, _ state: RequestState, _ request: Request,
        _ client: LiveClient
    ) -> MHD_Result {
        var asking = request
        asking.query["after"] = client.cursor
        while true {
            let response = pipeline.respond(to: asking, startedAt: state.startedAt, log: false)
            let waiting =
                client.until > monotonicMicroseconds() && response.status == 200
                && Self.hasNoEvents(response.body)
            if !waiting { return finish(connection, request, state, response) }
            switch client.next() {
            case .sleep: return MHD_Result.YES
            case .fetch, .heartbeat, .retry: continue
            case .expire, .close:
                return finish(connection, request, state, pipeline.respond(to: asking, startedAt: state.startedAt, log: false))
            }
        }
    }

    /// Whether events_list's answer has an empty `events` list.
    static func hasNoEvents(_ body: [UInt8]) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let events = object["events"] as? [Any]
        else { return false }
        return events.isEmpty
    }

    // MARK: Shared

    /// `api.events_stream_open` for the request's token and cursor: the user, their stream
    /// limit and the cursor to start from, or the problem to answer.
    private func open(_ request: Request) -> Result<(userID: String, maxStreams: Int, next: String), ResponseFailure> {
        let response = Self.openPipeline(pipeline).respond(to: request, log: false)
        guard response.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let userID = object["user_id"] as? String
        else {
            return .failure(ResponseFailure(response: response))
        }
        let maxStreams = (object["max_streams"] as? NSNumber)?.intValue ?? 1
        let next = (object["next"] as? NSNumber).map { String($0.int64Value) } ?? (object["next"] as? String) ?? "0"
        return .success((userID, maxStreams, next))
    }

    /// The same pool and checks (401 without a token, problems, retries) with a one-route table.
    static func openPipeline(_ pipeline: Pipeline) -> Pipeline {
        Pipeline(
            router: openRouter, pool: pipeline.pool, defaultBodyLimit: pipeline.defaultBodyLimit, logger: pipeline.logger,
            metrics: pipeline.metrics)
    }
    static let openRouter = Router(routes: [Routes.eventsStreamOpen])

    private func finish(_ connection: OpaquePointer, _ request: Request, _ state: RequestState, _ response: Response) -> MHD_Result {
        var response = response
        let requestID = Pipeline.requestID(from: request.header("x-request-id"))
        response.setHeader("X-Request-Id", requestID)
        pipeline.logRequest(request, template: "/events", status: response.status, startedAt: state.startedAt, requestID: requestID)
        return send(connection, response)
    }
}

struct ResponseFailure: Error {
    let response: Response
}

/// What a stream's content reader needs: its client and the server that fetches for it.
final class StreamContext {
    let server: HTTPServer
    let client: LiveClient
    init(server: HTTPServer, client: LiveClient) {
        self.server = server
        self.client = client
    }
}

/// libmicrohttpd asks for the next bytes of a stream. Pending frames first; else one reason to
/// work (a wake, a heartbeat); else the connection is suspended and 0 returned (the manual:
/// returning 0 is only for use with MHD_suspend_connection, which this reader does).
private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    let context = Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue()
    let client = context.client
    while true {
        if client.sent < client.pending.count {
            let count = min(max, client.pending.count - client.sent)
            client.pending.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + client.sent, byteCount: count)
            }
            client.sent += count
            if client.sent == client.pending.count {
                client.pending.removeAll()  // a large batch's buffer is not kept for an idle stream
                client.sent = 0
            }
            return count
        }
        switch client.next() {
        case .close, .expire:
            return -1  // MHD_CONTENT_READER_END_OF_STREAM
        case .fetch:
            if !context.server.fetch(into: client) { return -1 }
        case .retry:
            if !context.server.fetch(into: client) { return -1 }
            client.pending += Array(": heartbeat\n\n".utf8)
        case .heartbeat:
            client.pending += Array(": heartbeat\n\n".utf8)
        case .sleep:
            return 0
        }
    }
}

private let streamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamContext>.fromOpaque(cls).release()
}

// EventsEndpoint: the events route (api.events_list) at the socket, where a client may wait without holding a thread.
//
//   Accept: text/event-stream   an SSE stream: `api.events_stream_open` checks the token and the
//                               cursor (Last-Event-ID or ?after=) and says the user and their
//                               stream limit; then a 200 whose body ends when the connection
//                               closes, and once its headers are out, the socket goes to a
//                               writer thread (Live/StreamWriters.swift) and libmicrohttpd
//                               forgets the connection and frees its memory.
//   anything else               a long-poll: `api.events_list` (its route in the route table)
//                               answers at once when there are events or wait is 0; else the
//                               connection is suspended from the access handler until a wake or
//                               `wait` seconds, then asked again and answered with its status.
//
// Why the hand-over: a stream lives for hours and writes a few small frames, while a
// libmicrohttpd connection keeps its whole memory pool (16 KiB, most of it touched) for as long
// as it is open. The response's content reader does it: libmicrohttpd has sent the headers
// before it first asks for the body; the reader duplicates the socket's descriptor, gives it to
// a writer and ends the body. libmicrohttpd then closes its own descriptor without shutdown()
// (MHD_USE_TURBO, Daemon.start), so the connection stays open on the writer's. Both are
// behaviours of the libmicrohttpd versions in MHD/LibraryVersion.swift, checked at start.
// A long-poll has not chosen its status yet, so it suspends from the access handler and can
// still answer 401 or 503 when it wakes. Both wait for the same wakes (Live/EventStreams.swift).
// A stop ends a stream with a retry hint (`id:` its cursor, `retry:`) and answers a long-poll
// with Retry-After, so that each client resumes on another server with nothing missed.
// Swift parses HTTP only: SQL validates the token, the cursor and `wait`, and decides the events.
import CMicroHTTPD
import Foundation

extension HTTPServer {
    /// Events fetched per round trip on a stream; a full batch is followed by another at once.
    static let streamBatch = 100
    /// The reader's block: libmicrohttpd allocates it with the response; the reader writes
    /// nothing into it (the body is written by the writer thread), so it is the smallest.
    static let streamBlock = 1

    func answerEvents(_ connection: OpaquePointer, _ state: RequestState, _ request: Request) -> MHD_Result {
        guard let streams else { return MHD_Result.NO }
        // The moderation console's page listens with its session cookie (Web/WebPages.swift).
        let request = WebPages.withSessionAsBearer(request)
        if let client = state.live { return pollAgain(connection, state, request, client) }
        // The route table's rule on bodies holds here too (Pipeline.checkBody): the events route takes none.
        if case .found(let route, _) = state.match {
            do throws(Problem) { try pipeline.checkBody(request, for: route) } catch {
                return finish(connection, request, state, error.response)
            }
        }
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
        let opened: Opened
        switch open(opening) {
        case .failure(let failure): return finish(connection, request, state, failure.response)
        case .success(let value): opened = value
        }
        let client = LiveClient(
            kind: .stream, userID: opened.userID, token: request.bearerToken ?? "", address: request.connectionAddress ?? "",
            connection: HTTPConnection(connection), cursor: opened.next,
            deadline: monotonicMicroseconds() + streams.heartbeat * 1_000_000, tokenEnds: opened.tokenEnds)
        switch streams.register(client, limit: opened.maxStreams) {
        case .added:
            break
        case .stopping:
            // Not a 503, on which an EventSource gives up for good: a stream that only says where
            // to resume and to reconnect soon, to another server (the connection closes).
            var response = Response(
                status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("Connection", "close")],
                body: Array(EventStreams.retryHint(cursor: opened.next).utf8))
            response.setHeader("X-Accel-Buffering", "no")
            return finish(connection, request, state, response)
        case .full:
            let problem = Problem(
                429, "too_many_streams",
                "This account already has \(opened.maxStreams) event streams open here; close one first.")
            var response = problem.response
            response.setHeader("Retry-After", "15")
            return finish(connection, request, state, response)
        }
        state.live = client
        // The first bytes tell browsers to reconnect after 2 s.
        client.pending = Array("retry: 2000\n\n".utf8)
        let context = Unmanaged.passRetained(StreamContext(server: self, client: client)).toOpaque()
        guard let response = MHD_create_response_from_callback(UInt64.max, Self.streamBlock, streamReader, context, streamFree) else {
            Unmanaged<StreamContext>.fromOpaque(context).release()
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(response) }
        _ = focus_response_close_delimited(response)
        MHD_add_response_header(response, "Content-Type", "text/event-stream")
        MHD_add_response_header(response, "Cache-Control", "no-store")
        for (name, value) in Response.everyAnswer { MHD_add_response_header(response, name, value) }
        MHD_add_response_header(response, "X-Accel-Buffering", "no")
        // The body ends with the connection (no chunked coding): the writer writes SSE text.
        MHD_add_response_header(response, "Connection", "close")
        pipeline.logRequest(
            request, template: Routes.eventsList.template, status: 200, user: opened.userID, startedAt: state.startedAt,
            requestID: pipeline.requestIDs.id(from: request.header("x-request-id")))
        return MHD_queue_response(connection, 200, response)
    }

    /// One round trip: the events after the stream's cursor as SSE frames in `pending`.
    /// False when the stream must end (its token no longer signs in, or SQL refused the cursor).
    /// Runs on the stream's writer thread.
    static func fetch(into client: LiveClient, pipeline: Pipeline) -> Bool {
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
                if !error.sqlState.hasPrefix("PT4") { pipeline.logger.error("events stream: \(error)") }
                return false
            }
            client.update { $0.retry = true }
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
        let opened: Opened
        switch open(request) {
        case .failure(let failure): return finish(connection, request, state, failure.response)
        case .success(let value): opened = value
        }
        // SQL validates `wait` (events_list refuses anything but 0 to 60) before anyone waits.
        // A poll waits no longer than its token works: then it asks again and answers 401.
        let wait = UInt64(max(0, min(60, Int(request.query["wait"] ?? "0") ?? 0)))
        let client = LiveClient(
            kind: .poll, userID: opened.userID, token: request.bearerToken ?? "", address: request.connectionAddress ?? "",
            connection: HTTPConnection(connection), cursor: request.query["after"] ?? opened.next,
            deadline: min(monotonicMicroseconds() + wait * 1_000_000, opened.tokenEnds), tokenEnds: opened.tokenEnds)
        client.update { $0.dirty = false }
        if wait > 0 {
            switch streams.register(client, limit: opened.maxPolls) {
            case .added: break
            case .stopping: client.update { $0.closing = true }  // answer now: nothing may wait while the server stops
            case .full:
                var response = Problem(
                    429, "too_many_polls",
                    "This account already has \(opened.maxPolls) long-polls waiting here; wait for one to answer first."
                ).response
                response.setHeader("Retry-After", "15")
                return finish(connection, request, state, response)
            }
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
            case .expire:
                return finish(connection, request, state, pipeline.respond(to: asking, startedAt: state.startedAt, log: false))
            case .close:
                // The server stops: the usual answer now, and when to ask again (another server).
                var response = pipeline.respond(to: asking, startedAt: state.startedAt, log: false)
                response.setHeader("Retry-After", EventStreams.pollRetryAfter)
                return finish(connection, request, state, response)
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

    /// What `api.events_stream_open` says for a stream or a waiting long-poll.
    struct Opened {
        let userID: String
        let maxStreams: Int
        let maxPolls: Int
        let next: String
        /// Monotonic microseconds when the token expires (the database's clock, counted here).
        let tokenEnds: UInt64
    }

    /// `api.events_stream_open` for the request's token and cursor: the user, their stream and
    /// long-poll limits, the cursor to start from and the token's expiry, or the problem to answer.
    private func open(_ request: Request) -> Result<Opened, ResponseFailure> {
        let response = Self.openPipeline(pipeline).respond(to: request, log: false)
        guard response.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let userID = object["user_id"] as? String
        else {
            return .failure(ResponseFailure(response: response))
        }
        let maxStreams = (object["max_streams"] as? NSNumber)?.intValue ?? 1
        let maxPolls = (object["max_polls"] as? NSNumber)?.intValue ?? 1
        let next = (object["next"] as? NSNumber).map { String($0.int64Value) } ?? (object["next"] as? String) ?? "0"
        let expiresIn = UInt64(max(0, (object["token_expires_in"] as? NSNumber)?.int64Value ?? 0))
        let tokenEnds = monotonicMicroseconds() &+ min(expiresIn, UInt64(Int64.max) / 2_000_000) * 1_000_000
        return .success(Opened(userID: userID, maxStreams: maxStreams, maxPolls: maxPolls, next: next, tokenEnds: tokenEnds))
    }

    /// The same pool and checks (401 without a token, problems, retries, the release controls
    /// read from the same cache) with a one-route table.
    static func openPipeline(_ pipeline: Pipeline) -> Pipeline {
        Pipeline(
            router: openRouter, pool: pipeline.pool, defaultBodyLimit: pipeline.defaultBodyLimit, logger: pipeline.logger,
            metrics: pipeline.metrics, requestIDs: pipeline.requestIDs, cache: pipeline.cache)
    }
    static let openRouter = Router(routes: [Routes.eventsStreamOpen])

    private func finish(_ connection: OpaquePointer, _ request: Request, _ state: RequestState, _ response: Response) -> MHD_Result {
        var response = response
        let requestID = pipeline.requestIDs.id(from: request.header("x-request-id"))
        response.setHeader("X-Request-Id", requestID)
        pipeline.logRequest(
            request, template: Routes.eventsList.template, response: response, startedAt: state.startedAt,
            requestID: requestID)
        return answer(connection, response)
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

/// libmicrohttpd asks for the stream's body for the first time, so the headers are sent: the
/// socket goes to a writer thread and this response ends (libmicrohttpd closes its descriptor,
/// the writer keeps its own). If no writer can take it, the stream ends and the client
/// reconnects.
private let streamReader: MHD_ContentReaderCallback = { cls, _, _, _ in
    guard let cls else { return -2 }
    let context = Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue()
    let client = context.client
    let socket = fcntl(client.connection.socket, F_DUPFD_CLOEXEC, 0)
    if socket >= 0 { context.server.headDeadline.handedOff(client.connection.socket) }
    if socket >= 0, let writers = context.server.writers, writers.adopt(client, socket: socket, address: client.address) {
        return -1  // MHD_CONTENT_READER_END_OF_STREAM: libmicrohttpd lets go of the connection
    }
    if socket >= 0 { close(socket) }
    return -2  // MHD_CONTENT_READER_END_WITH_ERROR
}

private let streamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamContext>.fromOpaque(cls).release()
}

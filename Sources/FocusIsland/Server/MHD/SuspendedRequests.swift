// SuspendedRequests: the requests suspended while their statement runs (DB_ASYNC=on), each with
// its one way back. The database poller resumes one with its answer; a stop whose STOP_GRACE
// passed resumes the rest with 503 (MHD/GracefulStop.swift), because libmicrohttpd aborts the
// process when it stops with a connection suspended. Whichever comes first resumes it: resuming
// a connection twice, or one not suspended, is undefined behaviour in libmicrohttpd.
import Synchronization

final class SuspendedRequests: Sendable {
    /// Every suspended request passes here twice, from whichever thread suspends or resumes it:
    /// sharded, as a lock every thread takes becomes a convoy (Support/ShardedTable.swift).
    private let requests = ShardedTable<ObjectIdentifier, ParkedRequest>()

    fileprivate func add(_ request: ParkedRequest) { requests.set(ObjectIdentifier(request), request) }
    fileprivate func remove(_ request: ParkedRequest) { requests.set(ObjectIdentifier(request), nil) }

    /// Suspended right now.
    var count: Int { requests.count }

    /// Resumes every suspended request with `answer`; how many.
    func resumeAll(with answer: @escaping @Sendable () -> Response) -> Int {
        var waiting: [ParkedRequest] = []
        requests.forEachShard { waiting.append(contentsOf: $0.values) }
        return waiting.count { $0.resume(answer) }
    }
}

/// One request's suspension: suspended at most once, resumed at most once.
/// Lock order: a request's lock, then the registry's.
final class ParkedRequest: Sendable {
    private enum State {
        case running
        case suspended(HTTPConnection, SuspendedRequests)
        /// Resumed (or answered before it could suspend): the answer waits for the worker.
        case resumed(@Sendable () -> Response)
        case answered
    }
    private let state = Mutex<State>(.running)

    /// Suspends the connection and lists it in `registry` (from libmicrohttpd's access handler,
    /// where suspending is allowed).
    func suspend(_ connection: HTTPConnection, in registry: SuspendedRequests) {
        state.withLock { state in
            guard case .running = state else { return }
            state = .suspended(connection, registry)
            registry.add(self)
            connection.suspend()
        }
    }

    /// Resumes the request with `answer`, made on the worker that sends it; false if it was
    /// resumed already (the stop answered 503 first: this later answer is dropped).
    /// The state changes under the lock; the registry and libmicrohttpd (its own lock and a
    /// write to its eventfd) are told after it, so the worker's `take` never waits on them.
    /// Only the one call that moved the state from suspended resumes the connection, and its
    /// suspend finished under the lock before that.
    @discardableResult
    func resume(_ answer: @escaping @Sendable () -> Response) -> Bool {
        let outcome: (resumed: Bool, suspended: (HTTPConnection, SuspendedRequests)?) = state.withLock { state in
            switch state {
            case .running:
                state = .resumed(answer)
                return (true, nil)
            case .suspended(let connection, let registry):
                state = .resumed(answer)
                return (true, (connection, registry))
            case .resumed, .answered:
                return (false, nil)
            }
        }
        if let (connection, registry) = outcome.suspended {
            registry.remove(self)
            connection.resume()
        }
        return outcome.resumed
    }

    /// The answer it was resumed with, once (the access handler's call after the resume).
    func take() -> (@Sendable () -> Response)? {
        state.withLock { state in
            guard case .resumed(let answer) = state else { return nil }
            state = .answered
            return answer
        }
    }
}

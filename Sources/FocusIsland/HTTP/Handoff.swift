// Handoff: where the answer of a request's statement goes when its pool is asynchronous
// (Pipeline.respond, DB_ASYNC=on). If the answer comes while the worker that sent the statement
// still waits for it (the pool's answer wait, DB_ANSWER_WAIT), back to that worker, which is
// still inside libmicrohttpd's callback and answers at once; otherwise to the suspended
// request, which the poller resumes. The pool tells which by calling `leave` on the sending
// thread before the call leaves it: the request is suspended there, once.
import Synchronization

final class Handoff: Sendable {
    private enum State {
        case sending
        case suspended
        case answered(@Sendable () -> Response)
    }
    private let state = Mutex<State>(.sending)
    private let suspend: @Sendable () -> Void

    init(suspend: @escaping @Sendable () -> Void) { self.suspend = suspend }

    /// The call leaves the sending thread: the request is suspended (a retry that leaves again
    /// finds it suspended already).
    func leave() {
        let first = state.withLock { state in
            guard case .sending = state else { return false }
            state = .suspended
            return true
        }
        if first { suspend() }
    }

    /// Keeps the answer for the sending thread if the call never left it; false: the request
    /// is suspended, and the caller resumes it with the answer.
    func keep(_ make: @escaping @Sendable () -> Response) -> Bool {
        state.withLock { state in
            guard case .sending = state else { return false }
            state = .answered(make)
            return true
        }
    }

    /// The answer kept for the sending thread, if it came in time.
    var answered: (@Sendable () -> Response)? {
        state.withLock { state in
            if case .answered(let make) = state { return make }
            return nil
        }
    }
}

// Drain: where a graceful stop is (docs/operations.md, "Stopping and rolling deploys"), read by
// the pipeline (/ready) and the public port (MHD/HTTPServer.swift) on every request.
//
//   serving    the normal life of the server
//   draining   from the stop signal: /ready answers 503 `draining`, so that a balancer's health
//              check takes the instance out, and every answer says `Connection: close`, so that
//              no kept-alive connection carries a further request; /health stays 200
//   refusing   the last moment before libmicrohttpd stops: a request that starts now is
//              answered 503 `shutting_down` at once, so that none can be suspended when it stops
//              (libmicrohttpd aborts the process if one is)
import Synchronization

public final class Drain: Sendable {
    private enum Phase: Int { case serving, draining, refusing }
    private let phase = Atomic<Int>(Phase.serving.rawValue)

    public init() {}

    /// Starts draining; false if a stop had already started it.
    func begin() -> Bool {
        phase.compareExchange(
            expected: Phase.serving.rawValue, desired: Phase.draining.rawValue, ordering: .sequentiallyConsistent
        ).exchanged
    }

    /// From now on new requests are refused. Sequentially consistent with `inFlight` (HTTPServer):
    /// a request counted after the stop saw none in flight sees this.
    func refuse() { phase.store(Phase.refusing.rawValue, ordering: .sequentiallyConsistent) }

    /// A stop has begun: /ready says 503 and answers close their connection.
    public var draining: Bool { phase.load(ordering: .sequentiallyConsistent) >= Phase.draining.rawValue }

    /// libmicrohttpd is about to stop: new requests get 503 at once.
    var refusing: Bool { phase.load(ordering: .sequentiallyConsistent) == Phase.refusing.rawValue }
}

/// What a graceful stop waited for, for its log line.
public struct DrainReport: Sendable, CustomStringConvertible {
    /// Requests in flight when the listener closed (on workers or suspended for the database;
    /// waiting long-polls among them).
    public var inFlight = 0
    /// Event streams closed with a retry hint, and waiting long-polls answered.
    public var streams = 0
    public var polls = 0
    /// Kept-alive connections closed while idle.
    public var idle = 0
    /// Requests still waiting for the database at the end of STOP_GRACE, answered 503.
    public var cutOff = 0
    /// Requests still in flight after STOP_GRACE and its last second (on a worker that waits for
    /// a database that does not answer, or a body still arriving): libmicrohttpd is then left to
    /// the process's exit rather than stopped under them.
    public var stuck = 0
    /// From the signal to the end, in milliseconds.
    public var milliseconds = 0

    public var description: String {
        var text =
            "drained in \(milliseconds) ms: \(inFlight) request(s) in flight at the listener's close, "
            + "\(streams) stream(s) closed with a retry hint, \(polls) long-poll(s) answered, \(idle) idle connection(s) closed"
        if cutOff > 0 { text += ", \(cutOff) answered 503 after STOP_GRACE" }
        if stuck > 0 { text += ", \(stuck) still in flight (libmicrohttpd left to the exit)" }
        return text
    }
}

// AddressLimit: PER_IP_CONNECTION_LIMIT, counted here rather than by libmicrohttpd, whose own
// limit applies to every address alike: a trusted balancer carries many clients over its one
// address, so its connections are not capped per address (CONNECTION_LIMIT still holds), and a
// connection that arrived through the PROXY protocol is counted under the client's address
// (Server/ProxyListener.swift hands it to libmicrohttpd with that address). Decided 2026-12-05.
//
// The accept policy `admit`s a connection before libmicrohttpd builds it, and libmicrohttpd
// tells when it `started` and `closed` (MHD_OPTION_NOTIFY_CONNECTION). Between admit and start
// a connection may still fail (memory, a worker that filled up meanwhile) without a word, so an
// admission is a reservation that `started` turns into an open connection, and one never
// started is forgotten after `reservationLifetime`: a failure costs one slot for seconds, never
// for good. The check and the reservation are one step under one lock, so accepts racing on
// several threads never overshoot the limit (libmicrohttpd's own count never did either).
import Synchronization

final class AddressLimit: Sendable {
    let limit: Int
    private let state = Mutex(State())
    /// Microseconds an admission waits for its start before it no longer counts.
    static let reservationLifetime: UInt64 = 10_000_000

    private struct State {
        /// Started and not yet closed, by address.
        var open: [String: Int] = [:]
        /// Admitted and not yet started, by address: when each was admitted (monotonic µs).
        var reserved: [String: [UInt64]] = [:]
    }

    init(limit: Int) { self.limit = limit }

    /// Admits one more connection from `address` unless it holds `limit` already; `exempt`
    /// (a trusted proxy) is admitted whatever it holds, and counted all the same so that its
    /// start and close balance.
    func admit(_ address: String, exempt: Bool, now: UInt64 = monotonicMicroseconds()) -> Bool {
        state.withLock { state in
            var reserved = state.reserved[address, default: []]
            reserved.removeAll { now &- $0 > Self.reservationLifetime }
            guard exempt || state.open[address, default: 0] + reserved.count < limit else {
                state.reserved[address] = reserved.isEmpty ? nil : reserved
                return false
            }
            reserved.append(now)
            state.reserved[address] = reserved
            return true
        }
    }

    /// libmicrohttpd started serving a connection from `address`.
    func started(_ address: String) {
        state.withLock { state in
            if var reserved = state.reserved[address], !reserved.isEmpty {
                reserved.removeFirst()
                state.reserved[address] = reserved.isEmpty ? nil : reserved
            }
            state.open[address, default: 0] += 1
        }
    }

    /// libmicrohttpd is closing a connection from `address` (one it said it started).
    func closed(_ address: String) {
        state.withLock { state in
            let count = state.open[address, default: 0] - 1
            state.open[address] = count > 0 ? count : nil
        }
    }

    /// Connections counted for `address` now (open and admitted).
    func count(_ address: String) -> Int {
        state.withLock { $0.open[address, default: 0] + ($0.reserved[address]?.count ?? 0) }
    }
}

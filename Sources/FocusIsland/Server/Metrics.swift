// Metrics: what operators watch, in the Prometheus text format (GET /metrics on the separate
// METRICS_HOST/METRICS_PORT listener, MetricsServer). Counters are lock-free (Synchronization's
// Atomic): a request adds to its route's status counter and latency bucket without a lock.
// Every series is made at start from the route table, so the request path never allocates one
// and the label set is bounded: route is the template (/users/{id}), never the raw path.
import Synchronization

/// One lock-free counter (or gauge, when it also goes down).
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    public func add(_ amount: Int = 1) { value.add(amount, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}

public final class Metrics: Sendable {
    /// Latency bucket bounds in microseconds (le="0.0005" … "5" seconds, then +Inf).
    static let bucketBounds: [Int] = [
        500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000,
    ]
    /// Statuses counted in their own series; any other is counted as "other" (status="other").
    static let statuses: [Int] = [
        200, 201, 202, 204, 304, 400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 431, 500, 502, 503, 504,
    ]

    /// The series of one route (method and template).
    final class Series: Sendable {
        let method: String
        let route: String
        /// Per entry of `Metrics.statuses`, then one for any other status.
        let byStatus: [Counter]
        /// Per bucket of `Metrics.bucketBounds`, then +Inf (not cumulative; summed when rendered).
        let buckets: [Counter]
        let sumMicroseconds = Counter()

        init(method: String, route: String) {
            self.method = method
            self.route = route
            byStatus = (0...Metrics.statuses.count).map { _ in Counter() }
            buckets = (0...Metrics.bucketBounds.count).map { _ in Counter() }
        }
    }

    /// Routes by method, then template; requests that matched none go to `unmatched` (route="-").
    /// Two lookups of the strings the request has, not one of a "METHOD template" key made
    /// (allocated) for every request.
    private let series: [String: [String: Series]]
    private let ordered: [Series]
    private let unmatched = Series(method: "-", route: "-")

    public init(routes: [Route]) {
        var series: [String: [String: Series]] = [:]
        var ordered: [Series] = []
        for route in routes where series[route.method]?[route.template] == nil {
            let entry = Series(method: route.method, route: route.template)
            series[route.method, default: [:]][route.template] = entry
            ordered.append(entry)
        }
        self.series = series
        self.ordered = ordered
    }

    /// Counts one answered request. `route` is the matched template, or "-" for none.
    public func record(method: String, route: String, status: Int, microseconds: Int) {
        let entry = route == "-" ? unmatched : series[method == "HEAD" ? "GET" : method]?[route] ?? unmatched
        entry.byStatus[Self.statuses.firstIndex(of: status) ?? Self.statuses.count].add()
        entry.buckets[Self.bucketBounds.firstIndex { microseconds <= $0 } ?? Self.bucketBounds.count].add()
        entry.sumMicroseconds.add(microseconds)
    }

    /// The exposition text. `pool` gives the connection pool's gauges at this moment;
    /// `openStreams` the event streams and waiting long-polls open now, `listenerReconnects` how
    /// often the LISTEN connection was made again (all read at scrape time, not per request).
    public func render(pool: ConnectionPool.Usage, openStreams: Int = 0, listenerReconnects: Int = 0) -> String {
        var text = ""
        text += "# HELP focus_http_requests_total Requests answered, by method, route template and status.\n"
        text += "# TYPE focus_http_requests_total counter\n"
        for entry in ordered + [unmatched] {
            for (index, counter) in entry.byStatus.enumerated() where counter.current > 0 {
                let status = index < Self.statuses.count ? String(Self.statuses[index]) : "other"
                text += "focus_http_requests_total{\(labels(entry)),status=\"\(status)\"} \(counter.current)\n"
            }
        }
        text += "# HELP focus_http_request_duration_seconds Time from a request's first byte to its answer.\n"
        text += "# TYPE focus_http_request_duration_seconds histogram\n"
        for entry in ordered + [unmatched] {
            let counts = entry.buckets.map(\.current)
            let total = counts.reduce(0, +)
            guard total > 0 else { continue }
            var cumulative = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += counts[index]
                text += "focus_http_request_duration_seconds_bucket{\(labels(entry)),le=\"\(seconds(bound))\"} \(cumulative)\n"
            }
            text += "focus_http_request_duration_seconds_bucket{\(labels(entry)),le=\"+Inf\"} \(total)\n"
            text += "focus_http_request_duration_seconds_sum{\(labels(entry))} \(seconds(entry.sumMicroseconds.current))\n"
            text += "focus_http_request_duration_seconds_count{\(labels(entry))} \(total)\n"
        }
        let gauges: [(String, String, String, Int)] = [
            ("focus_db_pool_connections", "gauge", "Database connections the pool may hold (DB_POOL_SIZE).", pool.capacity),
            ("focus_db_pool_in_use", "gauge", "Database connections lent to a request now.", pool.inUse),
            ("focus_db_pool_waiting", "gauge", "Requests waiting for a database connection now.", pool.waiting),
            (
                "focus_db_pool_checkout_timeouts_total", "counter", "Requests that waited DB_POOL_TIMEOUT and got 503.",
                pool.checkoutTimeouts
            ),
            (
                "focus_db_suspended_total", "counter",
                "Statements whose request was suspended (DB_ASYNC=on): no connection or no answer within DB_ANSWER_WAIT.",
                pool.suspended
            ),
            ("focus_event_streams_open", "gauge", "Event streams and waiting long-polls (the events route) open now.", openStreams),
            ("focus_listener_reconnects_total", "counter", "Reconnections of the LISTEN connection.", listenerReconnects),
        ]
        for (name, type, help, value) in gauges {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        return text
    }

    private func labels(_ entry: Series) -> String {
        "method=\"\(entry.method)\",route=\"\(entry.route)\""
    }

    /// Microseconds as seconds, the unit Prometheus expects ("0.0005", "1", "2.5").
    private func seconds(_ microseconds: Int) -> String {
        let whole = microseconds / 1_000_000
        var fraction = String(microseconds % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }
}

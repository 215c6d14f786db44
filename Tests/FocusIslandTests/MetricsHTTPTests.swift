// Metrics: GET /metrics on its own listener (METRICS_HOST/METRICS_PORT), scraped after requests
// through the real server: the counters by route template and status, the latency histogram,
// the pool's gauges; the public port does not serve it.
import FocusIsland
import Foundation
import Testing

@Suite struct MetricsHTTPTests {
    /// The test server's metrics listener (METRICS_PORT=0: a free port).
    static let server: Result<MetricsServer, Error> = Result {
        guard let metrics = try TestServer.running().application.metricsServer else {
            throw TestSetupError(description: "the test server has no metrics listener")
        }
        return metrics
    }

    /// The value of one sample line (`name{labels} value`), 0 when absent.
    static func sample(_ text: String, _ series: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Int(line.dropFirst(series.count + 1)) ?? -1
        }
        return 0
    }

    static func scrape() throws -> HTTPResult {
        try HTTPClient(port: try server.get().port).send("GET", "/metrics")
    }

    @Test func countsRequestsByRouteTemplateAndStatus() throws {
        let before = try Self.scrape()
        #expect(before.status == 200)
        #expect(before.header("content-type") == "text/plain; version=0.0.4")
        let client = Transport.socket.client
        for _ in 0..<3 { _ = try client.send("GET", "/health") }
        let unknown = UUID().uuidString.lowercased()
        #expect(try client.send("GET", "/users/\(unknown)").status == 401)
        #expect(try client.send("GET", "/no-such-path").status == 404)
        let after = try Self.scrape().text

        let health = #"focus_http_requests_total{method="GET",route="/health",status="200"}"#
        #expect(Self.sample(after, health) >= Self.sample(before.text, health) + 3, "three GET /health counted")
        // The template, never the raw path: one series for every user id.
        let user = #"focus_http_requests_total{method="GET",route="/users/{id}",status="401"}"#
        #expect(Self.sample(after, user) >= 1)
        #expect(!after.contains(unknown), "raw paths never become labels")
        #expect(Self.sample(after, #"focus_http_requests_total{method="-",route="-",status="404"}"#) >= 1)
        let count = #"focus_http_request_duration_seconds_count{method="GET",route="/health"}"#
        let inf = #"focus_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"}"#
        #expect(
            Self.sample(after, count) >= 3 && Self.sample(after, inf) == Self.sample(after, count),
            "the histogram's +Inf bucket holds every request")
        #expect(Self.sample(after, "focus_db_pool_connections") == 8)
        for gauge in [
            "focus_db_pool_in_use", "focus_db_pool_waiting", "focus_db_pool_checkout_timeouts_total",
            "focus_db_suspended_total", "focus_event_streams_open", "focus_listener_reconnects_total",
        ] {
            #expect(after.contains("\n" + gauge + " "), "\(gauge) is exposed")
        }
    }

    @Test func onlyGetMetricsOnItsOwnPort() throws {
        let port = try Self.server.get().port
        #expect(try HTTPClient(port: port).send("GET", "/other").status == 404)
        let post = try HTTPClient(port: port).send("POST", "/metrics", body: [])
        #expect(post.status == 405 && post.header("allow") == "GET, HEAD")
        #expect(try Transport.socket.client.send("GET", "/metrics").status == 404, "the public port has no /metrics")
    }
}

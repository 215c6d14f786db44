// TestEnvironment: the real database and server the tests talk to. scripts/test starts a
// throwaway cluster and passes its URLs; nothing here is mocked.
import FocusIsland
import Foundation

struct MissingEnvironment: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: run the tests with scripts/test" }
}

enum TestEnvironment {
    static func variable(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw MissingEnvironment(variable: name)
        }
        return value
    }

    /// The server's own login (focus_api).
    static func apiURL() throws -> String { try variable("FOCUS_TEST_DATABASE_URL") }
    /// The owner's login, to look at and arrange rows directly.
    static func ownerURL() throws -> String { try variable("FOCUS_TEST_OWNER_URL") }
    /// A superuser login on the `postgres` database, to create scratch databases.
    static func adminURL() throws -> String { try variable("FOCUS_TEST_ADMIN_URL") }
    static func sqlDirectory() throws -> String { try variable("SQL_DIR") }

    /// A connection as focus_owner, for checking what a request did (or did not) change.
    static func owner() throws -> PGConnection { try PGConnection(conninfo: try ownerURL()) }

    /// One value from a query run as focus_owner.
    static func scalar(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        try owner().execute(sql, parameters).first?.first ?? nil
    }

    /// A unique email for this test run.
    static func email(_ name: String = "user") -> String {
        "\(name)-\(UInt64.random(in: 0 ... .max))@example.com"
    }
}

/// One server for the whole test process, started in-process on a free port.
enum TestServer {
    static let shared: Result<Running, Error> = Result {
        let url = try TestEnvironment.apiURL()
        var configuration = Configuration.defaults
        configuration.databaseURL = url
        configuration.port = 0
        configuration.poolSize = 8
        configuration.httpThreads = 8
        configuration.logFormat = .off
        let pool = ConnectionPool(conninfo: url, capacity: configuration.poolSize)
        let pipeline = Pipeline(router: Router(routes: Routes.all), pool: pool,
                                defaultBodyLimit: configuration.bodyLimit, logger: Logger(format: .off))
        let server = HTTPServer(pipeline: pipeline, configuration: configuration)
        try server.start()
        return Running(server: server, pipeline: pipeline)
    }

    struct Running: Sendable {
        let server: HTTPServer
        let pipeline: Pipeline
        var client: HTTPClient { HTTPClient(port: server.port) }
    }

    static func client() throws -> HTTPClient { try shared.get().client }
    static func pipeline() throws -> Pipeline { try shared.get().pipeline }
}

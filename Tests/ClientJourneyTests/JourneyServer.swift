// JourneyServer: the real server (Server/Application.swift, as `focus-island serve` runs it),
// started in this test process on a free port as FocusIslandTests/TestEnvironment.swift does,
// for the client library to talk to over HTTP; and the owner's connection, to arrange what
// only a DBA may (coins) and to read the clock.
// This file alone imports FocusIsland: the journeys see the client's types only.
import FocusIsland
import Foundation

struct JourneySetupError: Error, CustomStringConvertible {
    let description: String
}

enum JourneyServer {
    static func variable(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw JourneySetupError(description: "\(name) is not set: run the tests with scripts/test")
        }
        return value
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static let shared: Result<Application, any Error> = Result {
        var configuration = Configuration.defaults
        configuration.databaseURL = try variable("FOCUS_TEST_DATABASE_URL")
        configuration.listenDatabaseURL = (try? variable("FOCUS_TEST_LISTEN_URL")) ?? configuration.databaseURL
        configuration.port = 0
        configuration.poolSize = 4
        configuration.httpThreads = 4
        configuration.logFormat = .off
        configuration.preparedStatements = ProcessInfo.processInfo.environment["DB_PREPARED_STATEMENTS"] != "off"
        configuration.assetDirectory = try variable("SQL_DIR") + "/../assets"
        configuration.openAPIFile = repositoryRoot.appendingPathComponent("docs/openapi.json").path
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        // Assets not published: FocusIslandTests' server (same process, same database) publishes
        // its base URL; a second one would rewrite every item's URL (a catalog.changed) mid-run.
        try application.start(publishAssets: false)
        return application
    }

    /// The server's port on 127.0.0.1.
    static func port() throws -> UInt16 { try shared.get().server.port }

    static func baseURL() throws -> URL { URL(string: "http://127.0.0.1:\(try port())")! }

    /// One row of a query run as focus_owner.
    static func row(_ sql: String, _ parameters: [String?] = []) throws -> [String?] {
        try PGConnection(conninfo: try variable("FOCUS_TEST_OWNER_URL")).execute(sql, parameters).first ?? []
    }

    /// Coins for a user, as a DBA grants them (app.grant_coins): the only way to get them
    /// without focusing for hours.
    static func grantCoins(_ userID: UUID, _ coins: Int) throws {
        _ = try row("select app.grant_coins($1, $2, 'client journey')", [userID.uuidString.lowercased(), String(coins)])
    }

    /// now() in the database: tests never take the time from Date() (the cluster's clock may be
    /// moved, say to just before a Sunday midnight).
    static func databaseNow() throws -> Date {
        guard let text = try row("select extract(epoch from now())::text").first ?? nil, let seconds = Double(text) else {
            throw JourneySetupError(description: "no database clock")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}

// TestEnvironment: the real database and server the tests talk to. scripts/test starts a
// throwaway cluster and passes its URLs; nothing here is mocked.
import FocusIsland
import Foundation

struct MissingEnvironment: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: run the tests with scripts/test" }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
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
    /// The listener's own connection (LISTEN): straight to PostgreSQL, never through PgBouncer.
    static func listenURL() throws -> String {
        if let url = try? variable("FOCUS_TEST_LISTEN_URL") { return url }
        return try apiURL()
    }
    /// The owner's login, to look at and arrange rows directly.
    static func ownerURL() throws -> String { try variable("FOCUS_TEST_OWNER_URL") }
    /// A superuser login on the `postgres` database, to create scratch databases.
    static func adminURL() throws -> String { try variable("FOCUS_TEST_ADMIN_URL") }
    static func sqlDirectory() throws -> String { try variable("SQL_DIR") }
    /// The repository's root, found from this file (Tests/FocusIslandTests/…), whatever the
    /// working directory.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let openAPIPath = repositoryRoot + "/docs/openapi.json"

    /// A connection as focus_owner, for checking what a request did (or did not) change.
    static func owner() throws -> PGConnection { try PGConnection(conninfo: try ownerURL()) }

    /// One value from a query run as focus_owner.
    static func scalar(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        try owner().execute(sql, parameters).first?.first ?? nil
    }

    /// Marks every achievement unlocked for the user, without its reward or event: a test that
    /// counts coins or events exactly then counts only its own (achievements: AchievementsHTTPTests).
    static func holdEveryAchievement(_ userID: String) throws {
        try owner().execute(
            "insert into app.user_achievements (user_id, achievement_code) select $1::uuid, code from app.achievements on conflict do nothing",
            [userID])
    }

    /// Waits (at most 10 s) until every event committed so far can be listed: events are listed
    /// below the oldest running writer (docs/performance.md, "Events"), and other tests write at
    /// the same time.
    static func eventsReadable() throws {
        let connection = try owner()
        let newest = try connection.execute("select coalesce(max(id), 0)::text from app.events").first?.first ?? nil
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let passed = try connection.execute("select app.events_horizon() > $1::bigint", [newest ?? "0"]).first?.first ?? nil
            if passed == "t" { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The database's clock now.
    static func databaseClock() throws -> DatabaseClock { try DatabaseClock.read() }
    /// now() in the database.
    static func databaseNow() throws -> Date { try DatabaseClock.read().now }
    /// The start of the database's current UTC day.
    static func todayStart() throws -> Date { try DatabaseClock.read().todayStart }

    /// Runs `body` with the database's clock and returns what it returns, running it again if
    /// the database's UTC day changed meanwhile: a day (and so an ISO week) may end during a
    /// run, and a result that depends on the day must be read within the day it was built for.
    /// `body` must be repeatable (it makes its own accounts) and should leave assertions to the caller.
    static func withinOneUTCDay<T>(_ body: (DatabaseClock) throws -> T) throws -> T {
        for _ in 1...3 {
            let clock = try databaseClock()
            let result = try body(clock)
            if try todayStart() == clock.todayStart { return result }
            print("The database's UTC day ended at \((clock.todayStart + 86_400).rfc3339) during a test: running it again.")
        }
        throw TestSetupError(description: "the database's UTC day changed during each of three attempts")
    }

    /// A unique email for this test run.
    static func email(_ name: String = "user") -> String {
        "\(name)-\(UInt64.random(in: 0 ... .max))@example.com"
    }
}

/// The database's clock, read in one statement. The test cluster's clock may be moved with
/// libfaketime (say to 23:59:40 on a Sunday, where a UTC day and an ISO week end during the
/// run) while this process keeps the real one: tests take every time from here, never from
/// Date(), and build anything that must fall on a given day or week from its start.
struct DatabaseClock: Sendable, Equatable {
    /// now() in the database.
    let now: Date
    /// The start of the current UTC day, as the SQL rules count days (stats, leaderboards, coin cap).
    let todayStart: Date
    /// The start of the current ISO week (Monday, UTC), as weekly stats and leaderboards count.
    let weekStart: Date

    static func read() throws -> DatabaseClock {
        let row =
            try TestEnvironment.owner().execute(
                """
                select extract(epoch from now())::text,
                       extract(epoch from date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')::text,
                       extract(epoch from date_trunc('week', now() at time zone 'UTC') at time zone 'UTC')::text
                """
            ).first ?? []
        let dates = row.compactMap { $0.flatMap(Double.init).map(Date.init(timeIntervalSince1970:)) }
        guard dates.count == 3 else { throw TestSetupError(description: "no database clock in \(row)") }
        return DatabaseClock(now: dates[0], todayStart: dates[1], weekStart: dates[2])
    }
}

extension Date {
    /// RFC 3339 in UTC with microseconds, the API's time format (2026-11-30T08:00:00.000000Z).
    var rfc3339: String {
        let microseconds = Int64((timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let (wholeSeconds, micros) = fraction < 0 ? (seconds - 1, fraction + 1_000_000) : (seconds, fraction)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(wholeSeconds)))
        let digits = String(micros)
        return text.dropLast() + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }
}

/// One server for the whole test process, started in-process on a free port: the same
/// Application that `focus-island serve` runs, with its metrics listener on another free port.
enum TestServer {
    static let shared: Result<Running, Error> = Result {
        var configuration = Configuration.defaults
        configuration.databaseURL = try TestEnvironment.apiURL()
        // The listener connects straight to PostgreSQL even when the pool goes through PgBouncer.
        configuration.listenDatabaseURL = try TestEnvironment.listenURL()
        configuration.port = 0
        configuration.metricsPort = 0
        configuration.poolSize = 8
        configuration.httpThreads = 8
        configuration.logFormat = .off
        // scripts/test runs the suite once more through PgBouncer, with named statements off.
        configuration.preparedStatements = ProcessInfo.processInfo.environment["DB_PREPARED_STATEMENTS"] != "off"
        // And with DB_ANSWER_WAIT=0, so that every answer goes through the poller and a resume.
        if let wait = ProcessInfo.processInfo.environment["DB_ANSWER_WAIT"].flatMap(Double.init) {
            configuration.answerWait = wait
        }
        configuration.assetDirectory = try TestEnvironment.sqlDirectory() + "/../assets"
        configuration.openAPIFile = TestEnvironment.openAPIPath
        configuration.webDirectory = TestEnvironment.repositoryRoot + "/web"
        let application = try Application(configuration: configuration, logger: Logger(format: .off))
        try application.start()
        return Running(application: application)
    }

    struct Running: Sendable {
        let application: Application
        var server: HTTPServer { application.server }
        var pipeline: Pipeline { application.pipeline }
        var streams: EventStreams { application.streams }
        var listener: Listener { application.listener }
        var cache: SharedCache { application.cache }
        var client: HTTPClient { HTTPClient(port: server.port) }
    }

    /// The socket client: the server's port on 127.0.0.1.
    static func client() throws -> HTTPClient { try shared.get().client }
    /// The same pipeline the server answers with, for the in-process transport.
    static func pipeline() throws -> Pipeline { try shared.get().pipeline }
    static func running() throws -> Running { try shared.get() }
}

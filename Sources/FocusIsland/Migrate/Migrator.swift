// Migrator: applies sql/migrations in order (each once, checked by SHA-256), then loads the
// live definitions of the `app` functions from sql/app (create or replace: triggers stay bound),
// then drops and recreates the stateless schemas `api` and `report` from sql/api and
// sql/report, all in one transaction: a failed migrate leaves the database as it was. A session-level advisory
// lock lets two migrators run at once: the second waits, then finds nothing left to apply.
import Foundation

public struct MigrationError: Error, CustomStringConvertible {
    public let description: String
}

public struct MigrationReport: CustomStringConvertible, Sendable {
    /// Versions applied by this run, in order.
    public let applied: [Int]
    /// The newest version now in the database.
    public let schemaVersion: Int

    public var description: String {
        applied.isEmpty
            ? "migrate: nothing to apply, schema version \(schemaVersion)"
            : "migrate: applied \(applied.map(String.init).joined(separator: ", ")), schema version \(schemaVersion)"
    }
}

public struct Migrator: Sendable {
    public let conninfo: String
    public let directory: String
    /// Stateless schemas, recreated on every migrate from folders of the same name.
    static let statelessSchemas = ["api", "report"]
    /// The `app` functions' live definitions (trigger and helper functions), loaded after the
    /// migrations on every migrate. Migrations from `appFunctionsFirstNeeded` on may bind a
    /// trigger to a function defined there, so before the first such pending migration runs the
    /// functions it lacks are added (see addMissingAppFunctions).
    static let appFunctions = "app"
    static let appFunctionsFirstNeeded = 15
    /// Arbitrary constant naming the migration lock among advisory locks.
    static let lockKey = 7_123_001

    public init(conninfo: String, directory: String) {
        self.conninfo = conninfo
        self.directory = directory
    }

    public func migrate() throws -> MigrationReport {
        let files = try sqlFiles(in: "migrations").map { file -> (version: Int, name: String, path: String) in
            let stem = (file as NSString).lastPathComponent.replacingOccurrences(of: ".sql", with: "")
            let parts = stem.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]) else {
                throw MigrationError(description: "\(file): name it NNNN_description.sql")
            }
            return (version, String(parts[1]), file)
        }
        let connection = try PGConnection(conninfo: conninfo)
        try connection.execute("set client_min_messages = warning")
        try connection.execute("select pg_advisory_lock(\(Self.lockKey))")
        defer { _ = try? connection.execute("select pg_advisory_unlock(\(Self.lockKey))") }

        try connection.execute("begin")
        do {
            try connection.execute(
                """
                create schema if not exists app;
                create table if not exists app.schema_migrations (
                    version    integer primary key,
                    name       text not null,
                    checksum   text not null,
                    applied_at timestamptz not null default now()
                );
                """)
            var recorded: [Int: String] = [:]
            for row in try connection.execute("select version::text, checksum from app.schema_migrations") {
                if let version = row[0].flatMap({ Int($0) }), let checksum = row[1] { recorded[version] = checksum }
            }
            let known = Set(files.map(\.version))
            if let orphan = recorded.keys.sorted().first(where: { !known.contains($0) }) {
                throw MigrationError(description: "version \(orphan) is applied but its file is gone")
            }
            var applied: [Int] = []
            var appFunctionsLoaded = false
            for file in files {
                let text = try String(contentsOfFile: file.path, encoding: .utf8)
                let checksum =
                    try connection.execute(
                        "select encode(sha256(convert_to($1, 'UTF8')), 'hex')", [text])[0][0] ?? ""
                if let existing = recorded[file.version] {
                    guard existing == checksum else {
                        throw MigrationError(
                            description:
                                "\(file.path) changed after it was applied (checksum \(existing.prefix(12))… is now \(checksum.prefix(12))…); add a new migration instead"
                        )
                    }
                    continue
                }
                if file.version >= Self.appFunctionsFirstNeeded && !appFunctionsLoaded {
                    try addMissingAppFunctions(on: connection)
                    appFunctionsLoaded = true
                }
                try run(text, from: file.path, on: connection)
                try connection.execute(
                    "insert into app.schema_migrations (version, name, checksum) values ($1, $2, $3)",
                    [String(file.version), file.name, checksum])
                applied.append(file.version)
            }
            try loadAppFunctions(on: connection)
            for schema in Self.statelessSchemas {
                try connection.execute("drop schema if exists \(schema) cascade; create schema \(schema);")
                for file in try sqlFiles(in: schema) {
                    try run(try String(contentsOfFile: file, encoding: .utf8), from: file, on: connection)
                }
            }
            try connection.execute("commit")
            return MigrationReport(applied: applied, schemaVersion: files.last?.version ?? 0)
        } catch {
            _ = try? connection.execute("rollback")
            throw error
        }
    }

    /// Runs sql/seed/*.sql in one transaction; seeds are idempotent upserts.
    public func seed() throws -> Int {
        let files = try sqlFiles(in: "seed")
        let connection = try PGConnection(conninfo: conninfo)
        try connection.execute("set client_min_messages = warning")
        try connection.execute("begin")
        do {
            for file in files { try run(try String(contentsOfFile: file, encoding: .utf8), from: file, on: connection) }
            try connection.execute("commit")
            // Fresh statistics for the seeded tables, so the first plans are good ones.
            try connection.execute(
                """
                do $$ declare t regclass; begin
                    for t in select c.oid from pg_class c where c.relnamespace = 'app'::regnamespace and c.relkind = 'r'
                    loop execute format('analyze %s', t); end loop;
                end $$
                """)
        } catch {
            _ = try? connection.execute("rollback")
            throw error
        }
        return files.count
    }

    /// Adds the sql/app functions the database does not have yet, and leaves the ones it has as
    /// they are: the pending migrations run against the functions their database was made with
    /// (a body written for a later column would fail on an earlier one), and the bindings they
    /// create find their new functions. The folder is loaded with bodies unchecked (they may name
    /// what the migrations create), then each function that existed before gets its old
    /// definition back; the load after the migrations makes every one current.
    private func addMissingAppFunctions(on connection: PGConnection) throws {
        let existing = try connection.execute(
            "select pg_get_functiondef(p.oid) from pg_proc p where p.pronamespace = 'app'::regnamespace and p.prokind = 'f'"
        ).compactMap { $0[0] }
        try connection.execute("set local check_function_bodies = off")
        try loadAppFunctions(on: connection)
        for definition in existing { try connection.execute(definition) }
        try connection.execute("set local check_function_bodies = on")
    }

    private func loadAppFunctions(on connection: PGConnection) throws {
        for file in try sqlFiles(in: Self.appFunctions) {
            try run(try String(contentsOfFile: file, encoding: .utf8), from: file, on: connection)
        }
    }

    private func run(_ sql: String, from path: String, on connection: PGConnection) throws {
        do {
            try connection.execute(sql)
        } catch {
            throw MigrationError(description: "\(path): \(error)")
        }
    }

    private func sqlFiles(in folder: String) throws -> [String] {
        let path = (directory as NSString).appendingPathComponent(folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw MigrationError(description: "no folder \(path) (set SQL_DIR to the project's sql folder)")
        }
        return names.filter { $0.hasSuffix(".sql") }.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}

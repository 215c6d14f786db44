import Foundation
import Testing

// Migrations against scratch databases: idempotent, checksummed, safe to run twice at once.
@testable import FocusIsland

@Suite(.serialized) struct MigrationTests {
    /// A new empty database owned by focus_owner, and the owner's URL for it.
    func scratchDatabase() throws -> String {
        let name = "scratch_\(UInt32.random(in: 0 ... .max))"
        let admin = try PGConnection(conninfo: try TestEnvironment.adminURL())
        try admin.execute("create database \(name) owner focus_owner")
        return try TestEnvironment.ownerURL().replacingOccurrences(of: "/focus_island?", with: "/\(name)?")
    }

    @Test func migratingTwiceAppliesNothingTheSecondTime() throws {
        let url = try scratchDatabase()
        let migrator = Migrator(conninfo: url, directory: try TestEnvironment.sqlDirectory())
        let first = try migrator.migrate()
        #expect(!first.applied.isEmpty)
        let stamps = try PGConnection(conninfo: url).execute("select version, applied_at from app.schema_migrations order by 1")
        let second = try migrator.migrate()
        #expect(second.applied.isEmpty)
        #expect(second.schemaVersion == first.schemaVersion)
        #expect(try PGConnection(conninfo: url).execute("select version, applied_at from app.schema_migrations order by 1") == stamps)
    }

    @Test func aChangedAppliedMigrationIsRefusedAndChangesNothing() throws {
        let url = try scratchDatabase()
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: try TestEnvironment.sqlDirectory(), toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let migrator = Migrator(conninfo: url, directory: copy)
        _ = try migrator.migrate()

        let first = try FileManager.default.contentsOfDirectory(atPath: copy + "/migrations").sorted()[0]
        let handle = try #require(FileHandle(forWritingAtPath: copy + "/migrations/" + first))
        handle.seekToEndOfFile()
        handle.write(Data("\n-- edited after it was applied\n".utf8))
        handle.closeFile()
        // A new migration after the edited one must not be applied either: the run is all or nothing.
        try "create table app.should_not_exist (id integer);".write(
            toFile: copy + "/migrations/9999_extra.sql",
            atomically: true, encoding: .utf8)

        #expect { try migrator.migrate() } throws: { error in
            String(describing: error).contains("changed after it was applied")
        }
        #expect(try PGConnection(conninfo: url).execute("select to_regclass('app.should_not_exist')::text") == [[nil]])
    }

    @Test func aFailingMigrationLeavesTheDatabaseAsItWas() throws {
        let url = try scratchDatabase()
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: try TestEnvironment.sqlDirectory(), toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try "create table app.half_done (id integer); select 1/0;".write(
            toFile: copy + "/migrations/9999_broken.sql",
            atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try Migrator(conninfo: url, directory: copy).migrate() }
        let connection = try PGConnection(conninfo: url)
        #expect(
            try connection.execute(
                "select to_regclass('app.half_done')::text, to_regclass('app.users')::text, to_regnamespace('api')::text") == [
                    [nil, nil, nil]
                ])
    }

    @Test func twoMigratorsAtOnceBothFinishAndApplyEachStepOnce() throws {
        let url = try scratchDatabase()
        let directory = try TestEnvironment.sqlDirectory()
        let reports = try concurrently(2) { _ in try Migrator(conninfo: url, directory: directory).migrate() }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/migrations").filter { $0.hasSuffix(".sql") }
        #expect(reports.map(\.applied.count).sorted() == [0, files.count])
        #expect(
            try PGConnection(conninfo: url).execute("select count(*), count(distinct version) from app.schema_migrations")
                == [[String(files.count), String(files.count)]])
    }
}

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

    /// A copy of sql/ to change in a test; removed by the caller's defer.
    func sqlCopy() throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: try TestEnvironment.sqlDirectory(), toPath: copy)
        return copy
    }

    @Test func everyAppFunctionHasItsLiveDefinitionInSqlApp() throws {
        let url = try scratchDatabase()
        let directory = try TestEnvironment.sqlDirectory()
        _ = try Migrator(conninfo: url, directory: directory).migrate()
        let folder = directory + "/app"
        let texts = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
        let names = try PGConnection(conninfo: url).execute(
            "select p.proname from pg_proc p where p.pronamespace = 'app'::regnamespace order by 1"
        ).compactMap { $0[0] }
        #expect(!names.isEmpty)
        let missing = names.filter { !texts.contains("create or replace function app.\($0)(") }
        #expect(missing == [], "functions in schema app with no definition in sql/app: \(missing)")
    }

    @Test func aChangedAppFunctionTakesEffectOnTheNextMigrateAndStaysBound() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let migrator = Migrator(conninfo: url, directory: copy)
        _ = try migrator.migrate()
        let bindings = "select count(*) from pg_trigger where tgfoid = 'app.forbid_change()'::regprocedure"
        let boundBefore = try PGConnection(conninfo: url).execute(bindings)

        let file = copy + "/app/010_ledger.sql"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("'% is append-only'"))
        try text.replacingOccurrences(of: "'% is append-only'", with: "'% is append-only (edited)'")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let second = try migrator.migrate()

        #expect(second.applied.isEmpty)
        let connection = try PGConnection(conninfo: url)
        let edited = "select prosrc like '%(edited)%' from pg_proc where oid = 'app.forbid_change()'::regprocedure"
        #expect(try connection.execute(edited) == [["t"]])
        #expect(try connection.execute(bindings) == boundBefore)
    }

    @Test func aNewMigrationBindsATriggerToAFunctionOnlyInSqlApp() throws {
        let existing = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: existing, directory: copy).migrate()

        try """
        create or replace function app.count_new_items()
        returns trigger language plpgsql as $$ begin return null; end $$;
        """.write(toFile: copy + "/app/990_probe.sql", atomically: true, encoding: .utf8)
        try """
        create trigger shop_items_count_new after insert on app.shop_items
        for each row execute function app.count_new_items();
        """.write(toFile: copy + "/migrations/9999_probe.sql", atomically: true, encoding: .utf8)

        let bound = "select count(*) from pg_trigger where tgname = 'shop_items_count_new'"
        // An existing database (the folder's new function, then the binding) and a fresh one.
        #expect(try Migrator(conninfo: existing, directory: copy).migrate().applied == [9999])
        #expect(try PGConnection(conninfo: existing).execute(bound) == [["1"]])
        let fresh = try scratchDatabase()
        _ = try Migrator(conninfo: fresh, directory: copy).migrate()
        #expect(try PGConnection(conninfo: fresh).execute(bound) == [["1"]])
    }

    @Test func pendingMigrationsRunAgainstTheAppFunctionsTheirDatabaseHad() throws {
        let existing = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: existing, directory: copy).migrate()

        // The catalog's trigger now reads a column that only the last of two new migrations adds;
        // the first one fires the trigger, which must still run with the body it had.
        let file = copy + "/app/010_ledger.sql"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let bump = "    update app.catalog_version set version = version + 1, changed_at = now();"
        #expect(text.contains(bump))
        try text.replacingOccurrences(of: bump, with: "    perform new.probe_note;\n" + bump)
            .write(toFile: file, atomically: true, encoding: .utf8)
        try """
        insert into app.shop_items (kind, name, description, price, image) values ('pet', 'Probe', 'A probe.', 1, 'probe.png');
        """.write(toFile: copy + "/migrations/9998_item.sql", atomically: true, encoding: .utf8)
        try "alter table app.shop_items add column probe_note text;".write(
            toFile: copy + "/migrations/9999_note.sql", atomically: true, encoding: .utf8)

        #expect(try Migrator(conninfo: existing, directory: copy).migrate().applied == [9998, 9999])
        let current = "select prosrc like '%probe_note%' from pg_proc where oid = 'app.bump_catalog_version()'::regprocedure"
        #expect(try PGConnection(conninfo: existing).execute(current) == [["t"]], "the new body once all have run")
    }
}

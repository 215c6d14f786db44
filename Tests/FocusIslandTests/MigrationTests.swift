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

    @Test func eachMigrationIsATransactionOfItsOwn() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try "create table app.first_done (id integer);".write(
            toFile: copy + "/migrations/9998_first.sql", atomically: true, encoding: .utf8)
        try "create table app.half_done (id integer); select 1/0;".write(
            toFile: copy + "/migrations/9999_broken.sql",
            atomically: true, encoding: .utf8)
        #expect { try Migrator(conninfo: url, directory: copy).migrate() } throws: { error in
            String(describing: error).contains("9999_broken.sql: 22012")
        }
        // The migrations before the failing one stay applied and recorded; the failing one left
        // nothing, and `api` and `report` (made after the migrations) were not made.
        let connection = try PGConnection(conninfo: url)
        #expect(
            try connection.execute(
                "select to_regclass('app.first_done')::text, to_regclass('app.half_done')::text, to_regnamespace('api')::text") == [
                    ["app.first_done", nil, nil]
                ])
        let files = try FileManager.default.contentsOfDirectory(atPath: copy + "/migrations").filter { $0.hasSuffix(".sql") }
        #expect(
            try connection.execute("select count(*), max(version), bool_or(version = 9999) from app.schema_migrations")
                == [[String(files.count - 1), "9998", "f"]])
    }

    /// A Migrator that keeps what it logs, with short lock waits and pauses.
    func quickMigrator(_ url: String, _ directory: String, attempts: Int, lines: LogLines) -> Migrator {
        Migrator(
            conninfo: url, directory: directory,
            lockPolicy: MigrationLockPolicy(lockTimeout: "200ms", attempts: attempts, retryDelay: 0.05),
            log: { lines.append($0) })
    }

    @Test func aMigrationWaitingForALockTriesAgainAndSucceedsOnceItIsFree() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: url, directory: copy).migrate()
        try "alter table app.shop_items add column probe_note text;".write(
            toFile: copy + "/migrations/9999_note.sql", atomically: true, encoding: .utf8)

        // A request reading the table (an access share lock) for about a second and a half.
        let reader = try PGConnection(conninfo: url)
        try reader.execute("begin; select count(*) from app.shop_items;")
        let release = inBackground { _ in
            usleep(1_500_000)
            return try reader.execute("commit").count
        }
        let lines = LogLines()
        let started = Date()
        let report = try quickMigrator(url, copy, attempts: 30, lines: lines).migrate()
        release.done.wait()
        #expect(report.applied == [9999])
        #expect(Date().timeIntervalSince(started) >= 1.4)
        let retries = lines.all.filter { $0.contains("9999_note.sql: attempt") && $0.contains("failed (55P03") }
        #expect(retries.count >= 2, "\(lines.all)")
        #expect(
            try PGConnection(conninfo: url).execute(
                "select count(*) from information_schema.columns where table_schema = 'app' and table_name = 'shop_items' and column_name = 'probe_note'"
            ) == [["1"]])
    }

    @Test func aLockHeldPastEveryAttemptFailsTheMigrationWithNothingApplied() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: url, directory: copy).migrate()
        try """
        create table app.probe_before (id integer);
        alter table app.shop_items add column probe_note text;
        """.write(toFile: copy + "/migrations/9999_note.sql", atomically: true, encoding: .utf8)

        let reader = try PGConnection(conninfo: url)
        try reader.execute("begin; select count(*) from app.shop_items;")
        let lines = LogLines()
        #expect { try quickMigrator(url, copy, attempts: 3, lines: lines).migrate() } throws: { error in
            String(describing: error).contains("9999_note.sql: gave up after 3 attempts (lock_timeout 200ms), rolled back")
        }
        try reader.execute("commit")
        #expect(lines.all.filter { $0.contains("9999_note.sql: attempt") }.count == 2)
        #expect(
            try PGConnection(conninfo: url).execute(
                """
                select to_regclass('app.probe_before')::text,
                       (select count(*) from app.schema_migrations where version = 9999),
                       (select count(*) from information_schema.columns where table_schema = 'app' and column_name = 'probe_note')
                """) == [[nil, "0", "0"]])
    }

    static let concurrentIndex = """
        -- migrate: no-transaction
        -- Re-runnable from the top; a comment; with semicolons.
        drop index concurrently if exists app.shop_items_probe_price;
        create index concurrently if not exists shop_items_probe_price on app.shop_items (price);
        do $$ begin perform 1; perform 'a;b'; end $$;

        """

    @Test func aNoTransactionMigrationBuildsAnIndexConcurrentlyAndRunsAgainAfterAFailure() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: url, directory: copy).migrate()
        let file = copy + "/migrations/9999_price_index.sql"
        let index = "select indisvalid from pg_index where indexrelid = to_regclass('app.shop_items_probe_price')"
        let connection = try PGConnection(conninfo: url)

        // Failing after the index: the index stays, the migration is not recorded.
        try (Self.concurrentIndex + "select 1/0;\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try Migrator(conninfo: url, directory: copy).migrate() }
        #expect(try connection.execute(index) == [["t"]])
        #expect(try connection.execute("select count(*) from app.schema_migrations where version = 9999") == [["0"]])

        // Run again from the top once fixed, while a lock the build conflicts with is held for a
        // second: each try times out, is not recorded and starts again; then recorded, one valid index.
        try Self.concurrentIndex.write(toFile: file, atomically: true, encoding: .utf8)
        let holder = try PGConnection(conninfo: url)
        try holder.execute("begin; lock table app.shop_items in share mode;")
        let release = inBackground { _ in
            usleep(1_000_000)
            return try holder.execute("commit").count
        }
        let lines = LogLines()
        #expect(try quickMigrator(url, copy, attempts: 30, lines: lines).migrate().applied == [9999])
        release.done.wait()
        #expect(
            lines.all.contains {
                $0.contains("9999_price_index.sql: attempt 1 of 30 failed (55P03") && $0.contains("not recorded")
            }, "\(lines.all)")
        #expect(try connection.execute(index) == [["t"]])
        #expect(try connection.execute("select count(*) from app.schema_migrations where version = 9999") == [["1"]])
    }

    @Test func twoMigratorsAtOnceWithAConcurrentIndexBothFinish() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try Self.concurrentIndex.write(
            toFile: copy + "/migrations/9999_price_index.sql", atomically: true, encoding: .utf8)
        // The second waits for the lock without a snapshot, which the index build would wait for.
        let reports = try concurrently(2) { _ in try Migrator(conninfo: url, directory: copy).migrate() }
        #expect(reports.map { $0.applied.contains(9999) }.sorted { !$0 && $1 } == [false, true])
        #expect(
            try PGConnection(conninfo: url).execute(
                "select indisvalid from pg_index where indexrelid = to_regclass('app.shop_items_probe_price')") == [["t"]])
    }

    @Test func aDBAViewOnReportSurvivesAMigrate() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let lines = LogLines()
        let migrator = Migrator(conninfo: url, directory: copy, log: { lines.append($0) })
        _ = try migrator.migrate()
        let connection = try PGConnection(conninfo: url)
        try connection.execute(
            """
            create schema report_local;
            create materialized view report_local.outbox_snapshot as select * from report.outbox_backlog;
            create view report_local.busy_days with (security_barrier) as
                select day, active_users from report.daily_active_users where active_users > 0;
            create view report_local.busy_days_since_2026 as
                select * from report_local.busy_days where day >= date '2026-01-01';
            comment on view report_local.busy_days is 'Days anyone focused.';
            grant usage on schema report_local to focus_report;
            grant select on report_local.busy_days, report_local.busy_days_since_2026 to focus_report;
            """)
        let reportViewBefore = try connection.execute("select 'report.daily_active_users'::regclass::oid::text")

        _ = try migrator.migrate()
        let reportViewAfter = try connection.execute("select 'report.daily_active_users'::regclass::oid::text")
        #expect(reportViewAfter != reportViewBefore)
        #expect(
            try connection.execute(
                """
                select obj_description('report_local.busy_days'::regclass, 'pg_class'),
                       has_table_privilege('focus_report', 'report_local.busy_days_since_2026', 'select'),
                       (select array_to_string(reloptions, ',') from pg_class where oid = 'report_local.busy_days'::regclass),
                       (select count(*) from report_local.busy_days_since_2026) >= 0
                """) == [["Days anyone focused.", "t", "security_barrier=true", "t"]])
        // Only views are made again; anything else the cascade drops is named in the log.
        #expect(try connection.execute("select to_regclass('report_local.outbox_snapshot')::text") == [[nil]])
        #expect(
            lines.all.contains {
                $0.contains("materialized view report_local.outbox_snapshot reads schema api or report and is dropped with it")
            }, "\(lines.all)")

        // A DBA view the new `report` no longer fits fails the migrate by name, and the old
        // `report` stays.
        let file = copy + "/report/020_activity.sql"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("create view report.daily_active_users as"))
        try text.replacingOccurrences(of: "report.daily_active_users", with: "report.daily_active_users_renamed")
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect { try migrator.migrate() } throws: { error in
            String(describing: error).contains("the view report_local.busy_days reads schema api or report")
        }
        #expect(try connection.execute("select 'report.daily_active_users'::regclass::oid::text") == reportViewAfter)
        #expect(try connection.execute("select to_regclass('report.daily_active_users_renamed')::text") == [[nil]])
    }

    /// A request resolves `api.x` to a function's oid, then calls it; the replacement of `api`
    /// takes no lock a call would hold, so it can commit between the two. The old functions are
    /// kept (renamed schema) until a later migrate, past the grace: dropped at once, such a call
    /// failed with XX000 "cache lookup failed for function" (scripts/chaos live-migration).
    @Test func theReplacedApiIsKeptForCallsInFlightAndDroppedByALaterMigrate() throws {
        let url = try scratchDatabase()
        let migrator = Migrator(conninfo: url, directory: try TestEnvironment.sqlDirectory())
        _ = try migrator.migrate()
        let connection = try PGConnection(conninfo: url)
        let ready = "select 'api.ready()'::regprocedure::oid::text"
        let old = try #require(try connection.execute(ready)[0][0])
        let retired = "select coalesce(string_agg(nspname, ' ' order by nspname), '') from pg_namespace where nspname ~ '^api_retired_'"
        let before = try #require(try connection.execute(retired)[0][0])

        _ = try migrator.migrate()
        #expect(try connection.execute(ready)[0][0] != old)
        let kept = try connection.execute(
            "select n.nspname from pg_proc p join pg_namespace n on n.oid = p.pronamespace where p.oid = $1::oid", [old])
        #expect(kept.count == 1)
        let keptSchema = try #require(kept.first?[0])
        #expect(keptSchema.hasPrefix("api_retired_") && !before.contains(keptSchema), "\(kept)")
        // The answer the old function gives is the new one's: nothing but its name changed.
        #expect(try connection.execute("select \(keptSchema).ready() = api.ready()") == [["t"]])
        // Its functions are for calls already under way: the server's login cannot name them.
        #expect(
            try connection.execute("select has_schema_privilege('focus_api', $1, 'usage')::text", [keptSchema]) == [["false"]])

        // Retired long ago (its name says when): the next migrate drops it, and keeps the one it retires.
        try connection.execute("alter schema \(keptSchema) rename to api_retired_1000000")
        _ = try migrator.migrate()
        #expect(try connection.execute("select count(*)::text from pg_proc where oid = $1::oid", [old]) == [["0"]])
        let left = try #require(try connection.execute(retired)[0][0]).split(separator: " ").filter { !before.contains($0) }
        #expect(left.count == 1 && left[0] != "api_retired_1000000", "\(left)")

        // A DBA's view on an endpoint: api is dropped at once (the cascade takes the view, which
        // is made again on the new api), and the log says why.
        try connection.execute("create schema report_local; create view report_local.readiness as select api.ready() as answer")
        let retiredBefore = try connection.execute(retired)
        let lines = LogLines()
        _ = try Migrator(conninfo: url, directory: try TestEnvironment.sqlDirectory(), log: { lines.append($0) }).migrate()
        #expect(lines.all.contains { $0.contains("something outside api and report reads api: api is dropped at once") }, "\(lines.all)")
        #expect(try connection.execute("select (answer ->> 'status') from report_local.readiness") == [["ready"]])
        #expect(try connection.execute(retired) == retiredBefore)
    }

    @Test func aDBAViewTheMigratorCannotMakeAgainStopsTheMigrateBeforeAnythingIsDropped() throws {
        let url = try scratchDatabase()
        let directory = try TestEnvironment.sqlDirectory()
        _ = try Migrator(conninfo: url, directory: directory).migrate()
        let name = String(url[try #require(url.range(of: "scratch_[0-9]+", options: .regularExpression))])
        let admin = try PGConnection(
            conninfo: try TestEnvironment.adminURL().replacingOccurrences(of: "@/postgres?", with: "@/\(name)?"))
        try admin.execute(
            """
            create schema dba_only;
            create view dba_only.days as select day from report.daily_active_users;
            """)
        let lines = LogLines()
        #expect { try Migrator(conninfo: url, directory: directory, log: { lines.append($0) }).migrate() } throws: { error in
            String(describing: error).contains("the view dba_only.days reads schema api or report")
                && String(describing: error).contains("cannot create in its schema")
        }
        #expect(try admin.execute("select to_regclass('dba_only.days')::text") == [["dba_only.days"]])

        // Given create there, it is made again, owned by the migrator's login (not a member of
        // the superuser that owned it), and said so.
        try admin.execute("grant create on schema dba_only to focus_owner")
        _ = try Migrator(conninfo: url, directory: directory, log: { lines.append($0) }).migrate()
        #expect(
            try admin.execute("select pg_get_userbyid(relowner) from pg_class where oid = 'dba_only.days'::regclass") == [["focus_owner"]])
        #expect(lines.all.contains { $0.contains("the view dba_only.days is made again owned by this login, not by postgres") })
    }

    @Test func aMigrationChosenAsADeadlockVictimTriesAgain() throws {
        let url = try scratchDatabase()
        let copy = try sqlCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try Migrator(conninfo: url, directory: copy).migrate()
        let other = try PGConnection(conninfo: url)
        try other.execute("create table app.probe_a (id integer); create table app.probe_b (id integer);")
        try """
        lock table app.probe_a in access exclusive mode;
        lock table app.probe_b in access exclusive mode;
        """.write(toFile: copy + "/migrations/9999_both.sql", atomically: true, encoding: .utf8)

        // The other session holds b, and asks for a once the migration holds a and waits for b:
        // the migration waited first, so its deadlock check finds the cycle and it is the one to
        // give way; then the other session finishes and the retry gets both.
        try other.execute("begin; lock table app.probe_b in access share mode;")
        let after = inBackground { _ in
            usleep(300_000)
            return try other.execute("lock table app.probe_a in access share mode; commit;").count
        }
        let lines = LogLines()
        let migrator = Migrator(
            conninfo: url, directory: copy,
            lockPolicy: MigrationLockPolicy(lockTimeout: "10s", attempts: 3, retryDelay: 0.05), log: { lines.append($0) })
        #expect(try migrator.migrate().applied == [9999])
        after.done.wait()
        #expect(lines.all.contains { $0.contains("9999_both.sql: attempt 1 of 3 failed (40P01, deadlock)") }, "\(lines.all)")
    }

    @Test func theLockPolicyReadsTheEnvironment() throws {
        #expect(try MigrationLockPolicy(environment: [:]) == MigrationLockPolicy(lockTimeout: "2s", attempts: 5, retryDelay: 1))
        #expect(
            try MigrationLockPolicy(environment: [
                "MIGRATE_LOCK_TIMEOUT": "500ms", "MIGRATE_ATTEMPTS": "8", "MIGRATE_RETRY_DELAY": "0.25",
            ]) == MigrationLockPolicy(lockTimeout: "500ms", attempts: 8, retryDelay: 0.25))
        #expect(throws: MigrationError.self) { try MigrationLockPolicy(environment: ["MIGRATE_ATTEMPTS": "0"]) }
        let policy = MigrationLockPolicy(lockTimeout: "2s", attempts: 5, retryDelay: 1)
        for attempt in 1...6 {
            let pause = policy.pause(after: attempt)
            let ceiling = min(30, pow(2, Double(attempt - 1)))
            #expect(pause >= ceiling / 2 && pause <= ceiling)
        }
    }

    @Test func statementsSplitOutsideQuotesAndComments() {
        #expect(
            SQLStatements.split(
                """
                -- migrate: no-transaction
                select 'a;b', "c;d", E'e\\';f';  /* g; /* h; */ i; */
                do $x$ begin perform 1; end $x$;
                select $1, 2 -- j;
                ;
                -- only a comment;
                """) == [
                    "-- migrate: no-transaction\nselect 'a;b', \"c;d\", E'e\\';f';",
                    "/* g; /* h; */ i; */\ndo $x$ begin perform 1; end $x$;",
                    "select $1, 2 -- j;\n;",
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
        // Functions and procedures (the batched bulk work commits between batches, so it is a procedure).
        let rows = try PGConnection(conninfo: url).execute(
            "select p.proname, case p.prokind when 'p' then 'procedure' else 'function' end "
                + "from pg_proc p where p.pronamespace = 'app'::regnamespace order by 1")
        #expect(!rows.isEmpty)
        let missing = rows.compactMap { row -> String? in
            guard let name = row[0], let kind = row[1] else { return nil }
            return texts.contains("create or replace \(kind) app.\(name)(") ? nil : name
        }
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

// Migrator: applies sql/migrations in order (each once, checked by SHA-256), then, in one short
// transaction of its own, loads the live definitions of the `app` functions from sql/app
// (create or replace: triggers stay bound) and replaces the stateless schemas `api` and
// `report` from sql/api and sql/report. Safe on a live database (docs/operations.md, "Migrating
// a live database"):
// - Each migration is a transaction of its own, its checksum row recorded in that transaction:
//   a failed migration leaves the database as it was before it, and the migrations before it
//   applied and recorded. Every file is checked (checksums, no orphans) before any is applied.
// - A file whose first line is `-- migrate: no-transaction` (for CREATE INDEX CONCURRENTLY,
//   which cannot run in a transaction) runs statement by statement in autocommit and is recorded
//   only after its last statement succeeded; a failure midway leaves what its earlier statements
//   did, so such a file is written to run again from the top (docs/contributing.md).
// - Every transaction (and every no-transaction file) runs with lock_timeout (MIGRATE_LOCK_TIMEOUT,
//   2s): a step that waits for a lock longer gives up instead of queueing every request behind
//   it. On lock_not_available (55P03) or deadlock_detected (40P01) the step is rolled back and run
//   again after a random pause, at most MIGRATE_ATTEMPTS times; each retry is logged, and after
//   the last the migrate fails with that step not applied.
// - `report` and `api` are made again from their folders; views outside them that read them (a
//   DBA's own views) are saved first (definition, options, owner, grants, comment) and re-created
//   in the same transaction, or the migrate fails naming the view that no longer fits. `report`
//   is dropped; the old `api` is renamed `api_retired_<microseconds>` and dropped by a migrate
//   at least 10 minutes later: a request that resolved an old function just before the commit
//   still finds it (no lock protects a function a statement calls).
// A session-level advisory lock (taken with pg_try_advisory_lock in a loop, so a waiting
// migrator holds no snapshot that CREATE INDEX CONCURRENTLY would wait for) lets two migrators
// run at once: the second waits, then finds nothing left to apply.
import Foundation

public struct MigrationError: Error, CustomStringConvertible {
    public let description: String
    /// The SQLSTATE of the statement that failed, when one did.
    public let sqlState: String?

    public init(description: String, sqlState: String? = nil) {
        self.description = description
        self.sqlState = sqlState
    }
}

/// How long a migration step may wait for a lock, and how often it is tried.
public struct MigrationLockPolicy: Sendable, Equatable {
    /// PostgreSQL's lock_timeout for every step ('2s', '500ms').
    public var lockTimeout: String
    /// Tries of one step in all (1: no retry).
    public var attempts: Int
    /// The first pause between tries, in seconds; each next one doubles (at most 30 s), and
    /// each is drawn at random between half of it and all of it.
    public var retryDelay: Double

    public init(lockTimeout: String = "2s", attempts: Int = 5, retryDelay: Double = 1) {
        self.lockTimeout = lockTimeout
        self.attempts = max(1, attempts)
        self.retryDelay = max(0, retryDelay)
    }

    /// MIGRATE_LOCK_TIMEOUT, MIGRATE_ATTEMPTS, MIGRATE_RETRY_DELAY (seconds); the defaults when unset.
    public init(environment: [String: String]) throws(MigrationError) {
        self.init()
        if let value = environment["MIGRATE_LOCK_TIMEOUT"], !value.isEmpty { lockTimeout = value }
        if let value = environment["MIGRATE_ATTEMPTS"], !value.isEmpty {
            guard let number = Int(value), number >= 1 else {
                throw MigrationError(description: "MIGRATE_ATTEMPTS must be a whole number from 1, not '\(value)'")
            }
            attempts = number
        }
        if let value = environment["MIGRATE_RETRY_DELAY"], !value.isEmpty {
            guard let number = Double(value), number >= 0, number.isFinite else {
                throw MigrationError(description: "MIGRATE_RETRY_DELAY must be seconds (0 or more), not '\(value)'")
            }
            retryDelay = number
        }
    }

    /// The pause before try `attempt + 1`: random, between half and all of the doubled delay.
    func pause(after attempt: Int) -> Double {
        let ceiling = min(30, retryDelay * pow(2, Double(attempt - 1)))
        return ceiling <= 0 ? 0 : Double.random(in: (ceiling / 2)...ceiling)
    }
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
    public let lockPolicy: MigrationLockPolicy
    /// Where each retry and wait is told (the binary's log; standard error by default).
    public let log: @Sendable (String) -> Void
    /// Stateless schemas, recreated on every migrate from folders of the same name.
    static let statelessSchemas = ["api", "report"]
    /// The `app` functions' live definitions (trigger and helper functions), loaded after the
    /// migrations on every migrate. Migrations from `appFunctionsFirstNeeded` on may bind a
    /// trigger to a function defined there, so before the first such pending migration runs the
    /// functions it lacks are added (see addMissingAppFunctions).
    static let appFunctions = "app"
    static let appFunctionsFirstNeeded = 15
    /// The schema the replaced `api` is renamed to, with the microseconds since 1970 of its
    /// retirement after it (`api_retired_1796000000000000`): kept, not dropped, so a call that
    /// resolved an old function before the replacement committed still finds it (PostgreSQL
    /// locks no function a statement calls; a dropped one fails that call with XX000 "cache
    /// lookup failed for function"). A later migrate drops the retired ones older than
    /// `retiredGrace`, which is far longer than any request runs (focus_api's statement_timeout).
    static let retiredPrefix = "api_retired_"
    static let retiredGrace = "10 minutes"
    /// Arbitrary constant naming the migration lock among advisory locks.
    static let lockKey = 7_123_001
    /// The first line that makes a migration run outside a transaction, statement by statement.
    static let noTransactionMarker = "-- migrate: no-transaction"
    /// SQLSTATEs after which a step is rolled back and tried again: lock_not_available (the
    /// lock_timeout ran out) and deadlock_detected.
    static let retryableStates: Set<String> = ["55P03", "40P01"]

    public init(
        conninfo: String, directory: String, lockPolicy: MigrationLockPolicy = MigrationLockPolicy(),
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.conninfo = conninfo
        self.directory = directory
        self.lockPolicy = lockPolicy
        self.log = log
    }

    struct MigrationFile {
        let version: Int
        let name: String
        let path: String
        let text: String
        var outsideTransaction: Bool {
            text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces) == Migrator.noTransactionMarker } ?? false
        }
    }

    public func migrate() throws -> MigrationReport {
        let files = try sqlFiles(in: "migrations").map { file -> MigrationFile in
            let stem = (file as NSString).lastPathComponent.replacingOccurrences(of: ".sql", with: "")
            let parts = stem.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]) else {
                throw MigrationError(description: "\(file): name it NNNN_description.sql")
            }
            return MigrationFile(
                version: version, name: String(parts[1]), path: file,
                text: try String(contentsOfFile: file, encoding: .utf8))
        }
        let connection = try PGConnection(conninfo: conninfo)
        defer { connection.close() }
        try connection.execute("set client_min_messages = warning")
        try takeMigrationLock(on: connection)
        defer { _ = try? connection.execute("select pg_advisory_unlock(\(Self.lockKey))") }

        try transaction(on: connection, named: "app.schema_migrations") {
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
        }
        // Every file is checked before any is applied: an edited or missing one stops the run
        // with nothing applied.
        var recorded: [Int: String] = [:]
        for row in try connection.execute("select version::text, checksum from app.schema_migrations") {
            if let version = row[0].flatMap({ Int($0) }), let checksum = row[1] { recorded[version] = checksum }
        }
        let known = Set(files.map(\.version))
        if let orphan = recorded.keys.sorted().first(where: { !known.contains($0) }) {
            throw MigrationError(description: "version \(orphan) is applied but its file is gone")
        }
        var pending: [(file: MigrationFile, checksum: String)] = []
        for file in files {
            let checksum =
                try connection.execute("select encode(sha256(convert_to($1, 'UTF8')), 'hex')", [file.text])[0][0] ?? ""
            if let existing = recorded[file.version] {
                guard existing == checksum else {
                    throw MigrationError(
                        description:
                            "\(file.path) changed after it was applied (checksum \(existing.prefix(12))… is now \(checksum.prefix(12))…); add a new migration instead"
                    )
                }
                continue
            }
            pending.append((file, checksum))
        }

        var applied: [Int] = []
        var appFunctionsLoaded = false
        for (file, checksum) in pending {
            if file.version >= Self.appFunctionsFirstNeeded && !appFunctionsLoaded {
                try transaction(on: connection, named: "sql/app functions the migrations need") {
                    try addMissingAppFunctions(on: connection)
                }
                appFunctionsLoaded = true
            }
            let record = {
                try connection.execute(
                    "insert into app.schema_migrations (version, name, checksum) values ($1, $2, $3)",
                    [String(file.version), file.name, checksum])
            }
            if file.outsideTransaction {
                try outsideTransaction(on: connection, named: file.path) {
                    for statement in SQLStatements.split(file.text) { try run(statement, from: file.path, on: connection) }
                    _ = try record()
                }
            } else {
                try transaction(on: connection, named: file.path) {
                    try run(file.text, from: file.path, on: connection)
                    _ = try record()
                }
            }
            applied.append(file.version)
        }
        try transaction(on: connection, named: "sql/app, sql/api and sql/report") {
            try loadAppFunctions(on: connection)
            try replaceStatelessSchemas(on: connection)
        }
        return MigrationReport(applied: applied, schemaVersion: files.last?.version ?? 0)
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

    /// The advisory lock, asked for again every 200 ms rather than waited for in one statement:
    /// a statement waiting on it would hold a snapshot, and a CREATE INDEX CONCURRENTLY of the
    /// migrator holding the lock would wait for that snapshot (a deadlock).
    private func takeMigrationLock(on connection: PGConnection) throws {
        var told = false
        while try connection.execute("select pg_try_advisory_lock(\(Self.lockKey))")[0][0] != "t" {
            if !told {
                log("migrate: another migrate is running; waiting for it to finish")
                told = true
            }
            usleep(200_000)
        }
    }

    /// `body` in a transaction with lock_timeout set, tried again on a lock failure (see retrying).
    private func transaction(on connection: PGConnection, named step: String, _ body: () throws -> Void) throws {
        try retrying(step, undone: "rolled back") {
            try connection.execute("begin")
            do {
                try connection.execute("select set_config('lock_timeout', $1, true)", [lockPolicy.lockTimeout])
                try body()
                try connection.execute("commit")
            } catch {
                _ = try? connection.execute("rollback")
                throw error
            }
        }
    }

    /// `body` in autocommit with lock_timeout set for the session, tried again from its start on
    /// a lock failure; lock_timeout is put back afterwards.
    private func outsideTransaction(on connection: PGConnection, named step: String, _ body: () throws -> Void) throws {
        try retrying(step, undone: "not recorded (its statements before the failing one stay)") {
            try connection.execute("select set_config('lock_timeout', $1, false)", [lockPolicy.lockTimeout])
            defer { _ = try? connection.execute("reset lock_timeout") }
            try body()
        }
    }

    /// Runs `body` until it succeeds, fails otherwise than on a lock, or has been tried
    /// lockPolicy.attempts times; between tries a random pause, each one logged. `undone` says
    /// what became of a failed try.
    private func retrying(_ step: String, undone: String, _ body: () throws -> Void) throws {
        var attempt = 1
        while true {
            do {
                try body()
                return
            } catch {
                guard let state = Self.sqlState(of: error), Self.retryableStates.contains(state) else { throw error }
                guard attempt < lockPolicy.attempts else {
                    throw MigrationError(
                        description:
                            "\(step): gave up after \(attempt) attempt\(attempt == 1 ? "" : "s") (lock_timeout \(lockPolicy.lockTimeout)), \(undone): \(error)",
                        sqlState: state)
                }
                let pause = lockPolicy.pause(after: attempt)
                log(
                    "migrate: \(step): attempt \(attempt) of \(lockPolicy.attempts) failed (\(state), "
                        + "\(state == "40P01" ? "deadlock" : "lock not available within \(lockPolicy.lockTimeout)")); "
                        + "\(undone); trying again from its start in \(String(format: "%.2f", pause)) s")
                Thread.sleep(forTimeInterval: pause)
                attempt += 1
            }
        }
    }

    static func sqlState(of error: any Error) -> String? {
        if let error = error as? DatabaseError { return error.sqlState }
        if let error = error as? MigrationError { return error.sqlState }
        return nil
    }

    /// Makes `api` and `report` again from their folders, keeping the views outside them that
    /// read them (a DBA's own, DROP SCHEMA … CASCADE would drop them): each is saved as the
    /// statements that make it again, run once the schemas are back. The old `api` is not dropped but renamed and kept a while (see retiredPrefix): requests call its
    /// functions without any lock that would make the replacement wait for them. `report` holds
    /// views, which a query locks, so its drop waits for the queries on them (lock_timeout).
    /// When something outside `api` and `report` reads `api` (a DBA's view on an endpoint), `api`
    /// is dropped at once as before, so that the cascade takes it and it is made again on the
    /// new one; the log says so.
    private func replaceStatelessSchemas(on connection: PGConnection) throws {
        let saved = try dependantViews(on: connection)
        try connection.execute(
            """
            do $$
            declare
                v_schema name;
            begin
                for v_schema in
                    select n.nspname from pg_namespace n
                    where n.nspname ~ '^\(Self.retiredPrefix)[0-9]+$'
                      and substr(n.nspname, \(Self.retiredPrefix.count + 1))::numeric
                          < extract(epoch from now() - interval '\(Self.retiredGrace)') * 1000000
                    order by 1
                loop
                    execute format('drop schema %I cascade', v_schema);
                end loop;
            end
            $$
            """)
        let readers = try connection.execute(
            """
            with targets (classid, oid) as (
                select 'pg_class'::regclass, c.oid from pg_class c where c.relnamespace = to_regnamespace('api')
                union all
                select 'pg_proc'::regclass, p.oid from pg_proc p where p.pronamespace = to_regnamespace('api')
                union all
                select 'pg_type'::regclass, t.oid from pg_type t where t.typnamespace = to_regnamespace('api')
            )
            select count(*) from pg_depend d
            join targets t on d.refclassid = t.classid and d.refobjid = t.oid
            where d.deptype = 'n'
              and \(Self.dependantSchema) not in ('api', 'report')
            """)[0][0]
        if readers != "0" {
            log("migrate: something outside api and report reads api: api is dropped at once, not kept (a call in flight may fail)")
        } else {
            try connection.execute(
                """
                do $$
                declare
                    v_retired name := '\(Self.retiredPrefix)' || (extract(epoch from clock_timestamp()) * 1000000)::bigint;
                    v_grantee oid;
                begin
                    if to_regnamespace('api') is not null then
                        execute format('alter schema api rename to %I', v_retired);
                        -- Nobody looks a name up in it any more: a call by oid needs only its
                        -- function's EXECUTE, so the old endpoints cannot be called by name.
                        for v_grantee in
                            select distinct a.grantee from pg_namespace n, aclexplode(n.nspacl) a
                            where n.nspname = v_retired and a.grantee <> n.nspowner
                        loop
                            execute format('revoke all on schema %I from %s', v_retired,
                                           case when v_grantee = 0 then 'public' else quote_ident(pg_get_userbyid(v_grantee)) end);
                        end loop;
                    end if;
                end
                $$
                """)
        }
        for schema in Self.statelessSchemas {
            try connection.execute("drop schema if exists \(schema) cascade; create schema \(schema);")
            for file in try sqlFiles(in: schema) {
                try run(try String(contentsOfFile: file, encoding: .utf8), from: file, on: connection)
            }
        }
        for (name, statements) in saved {
            do {
                try connection.execute(statements)
            } catch {
                throw MigrationError(
                    description:
                        "the view \(name) reads schema api or report and could not be made again on the new one: \(error); "
                        + "change or drop it and migrate again (sql/app, sql/api and sql/report were left as they were). "
                        + "It was:\n\(statements)",
                    sqlState: error.sqlState)
            }
        }
    }

    /// Two common table expressions for the queries that look for what reads api and report:
    /// `stateless`, their namespaces, and `targets`, every relation, function and type in them.
    /// The schema of the object a pg_depend row `d` names ('' for none): a view's rule and a
    /// trigger have no schema of their own, so their table's counts (api.endpoints' own trigger
    /// reads api from inside it).
    static let dependantSchema = """
        coalesce(case when d.classid = 'pg_rewrite'::regclass
                      then (select c.relnamespace::regnamespace::text from pg_rewrite r
                            join pg_class c on c.oid = r.ev_class where r.oid = d.objid)
                      when d.classid = 'pg_trigger'::regclass
                      then (select c.relnamespace::regnamespace::text from pg_trigger g
                            join pg_class c on c.oid = g.tgrelid where g.oid = d.objid)
                      else (pg_identify_object(d.classid, d.objid, d.objsubid)).schema end, '')
        """

    static let statelessTargets = """
        stateless as (
            select oid from pg_namespace where nspname in (\(statelessSchemas.map { "'\($0)'" }.joined(separator: ", ")))
        ), targets (classid, oid) as (
            select 'pg_class'::regclass, c.oid from pg_class c where c.relnamespace in (select oid from stateless)
            union all
            select 'pg_proc'::regclass, p.oid from pg_proc p where p.pronamespace in (select oid from stateless)
            union all
            select 'pg_type'::regclass, t.oid from pg_type t where t.typnamespace in (select oid from stateless)
        )
        """

    /// Views outside api and report that read them, directly or through one another, in an order
    /// that makes each after those it reads, each with the statements that make it again.
    /// Names in the definitions are schema-qualified (search_path is pg_catalog while they are read).
    private func dependantViews(on connection: PGConnection) throws -> [(name: String, statements: String)] {
        let searchPath = try connection.execute("select current_setting('search_path')")[0][0] ?? ""
        try connection.execute("select set_config('search_path', 'pg_catalog', true)")
        let rows = try connection.execute(
            """
            with recursive \(Self.statelessTargets), dependants (oid, depth) as (
                select r.ev_class, 1
                from pg_depend d
                join targets t on d.refclassid = t.classid and d.refobjid = t.oid
                join pg_rewrite r on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                join pg_class v on v.oid = r.ev_class
                where v.relkind = 'v' and v.relnamespace not in (select oid from stateless)
                union
                select r.ev_class, dep.depth + 1
                from dependants dep
                join pg_depend d on d.refclassid = 'pg_class'::regclass and d.refobjid = dep.oid
                join pg_rewrite r on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                join pg_class v on v.oid = r.ev_class
                where v.relkind = 'v' and r.ev_class <> dep.oid and dep.depth < 100
            ), ordered as (
                select oid, max(depth) as depth from dependants group by oid
            )
            select format('%I.%I', n.nspname, c.relname),
                   concat_ws(E'\\n',
                       format('create view %I.%I%s as %s', n.nspname, c.relname,
                              case when c.reloptions is null then ''
                                   else format(' with (%s)', array_to_string(c.reloptions, ', ')) end,
                              pg_get_viewdef(c.oid)),
                       case when c.relowner <> (select oid from pg_roles where rolname = current_user)
                                 and pg_has_role(current_user, c.relowner, 'MEMBER')
                            then format('alter view %I.%I owner to %I;', n.nspname, c.relname, pg_get_userbyid(c.relowner)) end,
                       case when obj_description(c.oid, 'pg_class') is not null
                            then format('comment on view %I.%I is %L;', n.nspname, c.relname, obj_description(c.oid, 'pg_class')) end,
                       (select string_agg(format('grant %s on %I.%I to %s%s;', a.privilege_type, n.nspname, c.relname,
                                                 case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end,
                                                 case when a.is_grantable then ' with grant option' else '' end), E'\\n')
                        from aclexplode(c.relacl) a where a.grantee <> c.relowner)),
                   has_schema_privilege(n.oid, 'CREATE'),
                   case when not pg_has_role(current_user, c.relowner, 'MEMBER') then pg_get_userbyid(c.relowner) end
            from ordered o
            join pg_class c on c.oid = o.oid
            join pg_namespace n on n.oid = c.relnamespace
            order by o.depth, 1
            """)
        // Anything else outside them that reads them (a materialized view, a function with a
        // SQL-standard body) goes with the cascade: said in the log, by name.
        let others = try connection.execute(
            """
            with \(Self.statelessTargets)
            select distinct coalesce(
                (select format('%s %s', case c.relkind when 'm' then 'materialized view' else 'relation' end, c.oid::regclass)
                 from pg_rewrite r join pg_class c on c.oid = r.ev_class
                 where d.classid = 'pg_rewrite'::regclass and r.oid = d.objid),
                pg_describe_object(d.classid, d.objid, d.objsubid))
            from pg_depend d
            join targets t on d.refclassid = t.classid and d.refobjid = t.oid
            where d.deptype = 'n'
              and \(Self.dependantSchema) not in ('api', 'report')
              and not exists (select from pg_rewrite r join pg_class c on c.oid = r.ev_class
                              where d.classid = 'pg_rewrite'::regclass and r.oid = d.objid and c.relkind = 'v')
            """)
        for object in others.compactMap({ $0[0] }) {
            log("migrate: \(object) reads schema api or report and is dropped with it (only views are made again)")
        }
        try connection.execute("select set_config('search_path', $1, true)", [searchPath])
        var views: [(name: String, statements: String)] = []
        for row in rows {
            guard let name = row[0], let statements = row[1] else { continue }
            guard row[2] == "t" else {
                throw MigrationError(
                    description:
                        "the view \(name) reads schema api or report, so it is dropped with them and made again, but this "
                        + "login cannot create in its schema: grant it create on that schema, or move the view "
                        + "(docs/operations.md, \"A DBA's own views on report\"); nothing of sql/app, sql/api and sql/report was replaced")
            }
            if let owner = row[3] {
                log("migrate: the view \(name) is made again owned by this login, not by \(owner), of which it is not a member")
            }
            views.append((name, statements))
        }
        return views
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
            throw MigrationError(description: "\(path): \(error)", sqlState: error.sqlState)
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

/// Splits a script into its statements at the semicolons outside quotes ('…', E'…', "…"),
/// dollar quotes ($$…$$, $tag$…$tag$) and comments (-- to the line's end, nested /* … */), for
/// a migration run one statement at a time. Statements holding only comments and blanks are left out.
enum SQLStatements {
    static func split(_ script: String) -> [String] {
        let bytes = Array(script.utf8)
        var statements: [String] = []
        var start = 0
        var hasCode = false
        var index = 0
        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func isTagByte(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || byte >= 128
                || (!first && byte >= 48 && byte <= 57)
        }
        func finish(_ end: Int) {
            if hasCode {
                let text = String(decoding: bytes[start..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                statements.append(text)
            }
            start = end
            hasCode = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "-") where at(1) == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "*"):
                var depth = 0
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "/") && at(1) == UInt8(ascii: "*") {
                        depth += 1
                        index += 2
                    } else if bytes[index] == UInt8(ascii: "*") && at(1) == UInt8(ascii: "/") {
                        depth -= 1
                        index += 2
                        if depth == 0 { break }
                    } else {
                        index += 1
                    }
                }
                continue
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let escapes =
                    byte == UInt8(ascii: "'") && index > 0
                    && (bytes[index - 1] == UInt8(ascii: "E") || bytes[index - 1] == UInt8(ascii: "e"))
                hasCode = true
                index += 1
                while index < bytes.count {
                    if escapes && bytes[index] == UInt8(ascii: "\\") {
                        index += 2
                    } else if bytes[index] == byte {
                        if at(1) == byte {
                            index += 2
                        } else {
                            index += 1
                            break
                        }
                    } else {
                        index += 1
                    }
                }
                continue
            case UInt8(ascii: "$"):
                hasCode = true
                var end = index + 1
                while end < bytes.count && isTagByte(bytes[end], first: end == index + 1) { end += 1 }
                if end < bytes.count && bytes[end] == UInt8(ascii: "$")
                    && (index == 0 || !isTagByte(bytes[index - 1], first: false))
                {
                    let tag = Array(bytes[index...end])
                    index = end + 1
                    while index < bytes.count {
                        if bytes[index] == UInt8(ascii: "$") && index + tag.count <= bytes.count
                            && Array(bytes[index..<index + tag.count]) == tag
                        {
                            index += tag.count
                            break
                        }
                        index += 1
                    }
                    continue
                }
                index += 1
                continue
            case UInt8(ascii: ";"):
                index += 1
                finish(index)
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
                continue
            default:
                hasCode = true
                index += 1
            }
        }
        finish(bytes.count)
        return statements
    }
}

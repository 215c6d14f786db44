// Every stored column that can hold text, JSON, bytes or an address says, in the first line of
// its comment, whether it is personal and what erasure does to it (the form: docs/contributing.md,
// "Describing a column's personal data"); docs/privacy.md's catalogue is generated from those
// lines (scripts/lib/privacy-catalogue.py, which scripts/lint runs). This checks the comments
// against the database's catalog both ways, so a column added later cannot go undescribed (and
// no other column claims a place in the catalogue).
import Foundation
import Testing

@Suite struct PrivacyCatalogueTests {
    /// The first line of a described column's comment, as docs/contributing.md states it.
    static let form = #"personal: (yes|no|pseudonymous)( \(.+?\))?; on erasure: \S.*"#

    /// The first line of every column comment of every table (ordinary, partitioned,
    /// materialized) in the schemas `stored()` reads, by `schema.table.column`.
    static func comments() throws -> [String: String] {
        let rows = try TestEnvironment.owner().execute(
            """
            select n.nspname || '.' || c.relname || '.' || a.attname, split_part(d.description, E'\\n', 1)
            from pg_class c
            join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            join pg_description d on d.classoid = 'pg_class'::regclass and d.objoid = c.oid and d.objsubid = a.attnum
            where c.relkind in ('r', 'p', 'm') and not c.relispartition and n.nspname not in ('pg_catalog', 'information_schema', 'test')
              and n.nspname !~ '^(pg_(toast|temp_)|api_retired_)'
            """)
        return Dictionary(
            rows.compactMap { row -> (String, String)? in
                guard row.count == 2, let name = row[0], let line = row[1] else { return nil }
                return (name, line)
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Every such column of every table (ordinary, partitioned, materialized) in every schema
    /// but the system's, the test helpers' and the retired copies of `api` a migrate keeps a
    /// while (`api_retired_<time>`, the same tables as `api`): string and network types (citext included),
    /// json, jsonb and bytea, also as a domain's base or an array's element. A partition's
    /// columns are its partitioned table's, listed once under that table's name.
    static func stored() throws -> Set<String> {
        let rows = try TestEnvironment.owner().execute(
            """
            select n.nspname || '.' || c.relname || '.' || a.attname
            from pg_class c
            join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            join pg_type t on t.oid = a.atttypid
            join pg_type b on b.oid = coalesce(nullif(t.typbasetype, 0), t.oid)
            left join pg_type e on e.oid = nullif(b.typelem, 0) and b.typcategory = 'A'
            where c.relkind in ('r', 'p', 'm') and not c.relispartition and n.nspname not in ('pg_catalog', 'information_schema', 'test')
              and n.nspname !~ '^(pg_(toast|temp_)|api_retired_)'
              and (b.typcategory in ('S', 'I') or b.typname in ('json', 'jsonb', 'bytea')
                   or e.typcategory in ('S', 'I') or e.typname in ('json', 'jsonb', 'bytea'))
            """)
        return Set(rows.compactMap { $0.first ?? nil })
    }

    @Test func everyStoredTextColumnIsDescribedInItsComment() throws {
        let comments = try Self.comments(), stored = try Self.stored()
        let form = try Regex(Self.form)
        #expect(!stored.isEmpty)
        let undescribed = stored.filter { name in
            guard let line = comments[name] else { return true }
            return (try? form.wholeMatch(in: line)) == nil
        }
        #expect(
            undescribed.sorted().map { "\($0): \(comments[$0] ?? "no comment")" } == [],
            "stored columns whose comment does not start `personal: …; on erasure: …` (docs/contributing.md)")
        let claimed = comments.filter { $0.value.hasPrefix("personal") }.keys
        #expect(
            Set(claimed).subtracting(stored).sorted() == [],
            "columns described for the catalogue that cannot hold text, JSON, bytes or an address")
    }

    @Test func theFormTellsALineFromProse() throws {
        let form = try Regex(Self.form)
        let lines = [
            "personal: yes; on erasure: deleted",
            "personal: no (a kind of entry; sums per person); on erasure: kept, tied to the tombstone",
            "personal: pseudonymous (SHA-256 of a request); on erasure: the account's rows deleted",
        ]
        let prose = [
            "Personal: yes; on erasure: deleted", "personal: maybe; on erasure: deleted",
            "personal: yes; on erasure: ", "personal: yes (device)", "personal: yes(device); on erasure: deleted",
        ]
        #expect(lines.filter { (try? form.wholeMatch(in: $0)) == nil } == [])
        #expect(prose.filter { (try? form.wholeMatch(in: $0)) != nil } == [])
    }
}

// docs/privacy.md lists every stored column that can hold text, JSON, bytes or an address,
// with what account deletion does to it. This checks that list against the database's
// catalog both ways, so a column added later cannot be forgotten there (and one removed
// leaves no stale row).
import Foundation
import Testing

@Suite struct PrivacyCatalogueTests {
    /// The `schema.table.column` names in the first column of docs/privacy.md's catalogue table.
    static func listed() throws -> Set<String> {
        let text = try String(contentsOfFile: TestEnvironment.repositoryRoot + "/docs/privacy.md", encoding: .utf8)
        let section = text.components(separatedBy: "## Catalogue of stored text").dropFirst().first ?? ""
        return Set(
            section.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `") else { return nil }
                return line.dropFirst(3).split(separator: "`").first.map(String.init)
            })
    }

    /// Every such column of every table (ordinary, partitioned, materialized) in every schema
    /// but the system's and the test helpers': string and network types (citext included),
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
              and n.nspname !~ '^pg_(toast|temp_)'
              and (b.typcategory in ('S', 'I') or b.typname in ('json', 'jsonb', 'bytea')
                   or e.typcategory in ('S', 'I') or e.typname in ('json', 'jsonb', 'bytea'))
            """)
        return Set(rows.compactMap { $0.first ?? nil })
    }

    @Test func everyStoredTextColumnIsInThePrivacyCatalogue() throws {
        let listed = try Self.listed(), stored = try Self.stored()
        #expect(!stored.isEmpty)
        #expect(stored.subtracting(listed).sorted() == [], "columns missing from docs/privacy.md's catalogue")
        #expect(listed.subtracting(stored).sorted() == [], "catalogue rows for columns that no longer exist")
    }
}

import Foundation
import Testing

// The route table and the database's endpoints match one to one: every `.sql(function)` in
// Routes.all is an `api` function of the endpoint shape its route calls, executable by the
// server's role, every such endpoint is named by some route (none is left unreachable), and
// every endpoint is called by some pgTAP file in sql/tests.
@testable import FocusIsland

@Suite struct RouteTableDatabaseTests {
    /// An endpoint's shape: its argument types and what it returns.
    struct Shape: Equatable, CustomStringConvertible {
        let arguments: String
        let returns: String
        var description: String { "(\(arguments)) → \(returns)" }
    }

    /// The shape Route.statement calls: (token, params, body) returning a reply row.
    static func shape(of route: Route) -> Shape {
        Shape(
            arguments: route.body == .image ? "text, jsonb, bytea" : "text, jsonb, jsonb",
            returns: route.response == .file ? "api.file_reply" : "api.reply")
    }

    /// Every function in schema `api` taking (text, jsonb, jsonb) or (text, jsonb, bytea), by
    /// qualified name, with its shape and whether focus_api may execute it; read as the owner.
    static func endpoints() throws -> [(name: String, shape: Shape, executable: Bool)] {
        try TestEnvironment.owner().execute(
            """
            select 'api.' || p.proname, oidvectortypes(p.proargtypes), p.prorettype::regtype::text,
                   has_function_privilege('focus_api', p.oid, 'execute')::text
            from pg_proc p
            where p.pronamespace = 'api'::regnamespace and p.prokind = 'f'
              and oidvectortypes(p.proargtypes) in ('text, jsonb, jsonb', 'text, jsonb, bytea')
            order by 1
            """
        ).map { row in
            (row[0] ?? "", Shape(arguments: row[1] ?? "", returns: row[2] ?? ""), row[3] == "true")
        }
    }

    /// The route table, the one route the server calls itself (opening an event stream), and the
    /// web pages' functions (Web/WebPages.swift).
    static let sqlRoutes: [(function: String, route: Route)] =
        (Routes.all + [Routes.eventsStreamOpen]
        + WebPages.all.compactMap(\.route)).compactMap { route in
            if case .sql(let function) = route.action { (function, route) } else { nil }
        }

    @Test func everyRouteCallsAnEndpointOfItsShapeThatTheServerMayExecute() throws {
        let endpoints = try Self.endpoints()
        for (function, route) in Self.sqlRoutes {
            let found = endpoints.filter { $0.name == function }
            let shapes = found.map(\.shape), expected = Self.shape(of: route), executable = found.allSatisfy(\.executable)
            #expect(shapes == [expected], "\(route.method) \(route.template) calls \(function)")
            #expect(executable, "focus_api may not execute \(function)")
        }
    }

    @Test func everyEndpointIsCalledBySomePgTAPFile() throws {
        let folder = try TestEnvironment.sqlDirectory() + "/tests"
        let tests = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
        let untested = try Self.endpoints().map(\.name).filter {
            tests.range(of: NSRegularExpression.escapedPattern(for: $0) + "(?![a-z0-9_])", options: .regularExpression) == nil
        }
        #expect(untested == [], "endpoints no file in sql/tests calls")
    }

    /// Routes.localized names exactly the endpoints (but the web pages') whose SQL reaches api.item_json or
    /// api.tip_json (followed through the sources of the api functions they call), so every
    /// answer holding item or tip text negotiates its language and says it (docs/languages.md).
    @Test func theLocalizedRoutesAreTheEndpointsThatShowItemsOrTips() throws {
        let reaching = try TestEnvironment.owner().execute(
            """
            with recursive showing(oid, name) as (
                select p.oid, p.proname from pg_proc p
                where p.pronamespace = 'api'::regnamespace and p.proname in ('item_json', 'tip_json')
                union
                select p.oid, p.proname from pg_proc p, showing s
                where p.pronamespace = 'api'::regnamespace and p.prosrc ~ ('api\\.' || s.name || '\\(')
            )
            select 'api.' || p.proname from pg_proc p join showing s on s.oid = p.oid
            where oidvectortypes(p.proargtypes) in ('text, jsonb, jsonb', 'text, jsonb, bytea')
            order by 1
            """
        ).compactMap { $0[0] }
        // The web pages answer HTML that shows no item or tip (the console's sign-in calls login,
        // whose answer does, and keeps only its token).
        let pages = Set(
            WebPages.all.compactMap(\.route).compactMap { route -> String? in
                if case .sql(let function) = route.action { function } else { nil }
            })
        #expect(Set(reaching).subtracting(pages) == Routes.localized)
    }

    @Test func everyEndpointTheServerMayExecuteIsNamedByARoute() throws {
        let named = Set(Self.sqlRoutes.map(\.function))
        let executable = try Self.endpoints().filter(\.executable).map(\.name)
        #expect(executable.filter { !named.contains($0) } == [], "endpoints no route reaches")
    }
}

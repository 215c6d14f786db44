import Foundation
import Testing

// Every route in the table, in-process and over a real socket: bearer routes refuse a missing
// or unknown token with 401 before anything else happens.
@testable import FocusIsland

@Suite struct RouteTableHTTPTests {
    static let bearerRoutes = Routes.all.filter { $0.documented && $0.access == .bearer }

    @Test(arguments: Transport.allCases, bearerRoutes.map { "\($0.method) \($0.template)" })
    func bearerRoutesNeedAValidToken(transport: Transport, route: String) throws {
        let client = transport.client
        let parts = route.split(separator: " ", maxSplits: 1)
        let method = String(parts[0])
        let path = String(parts[1]).replacingOccurrences(of: "{kind}", with: "pet")
            .replacingOccurrences(of: #"\{[a-z_]+\}"#, with: UUID().uuidString, options: .regularExpression)
        let isImage = path == "/me/avatar" && method == "PUT"
        let headers = ["Content-Type": isImage ? "image/png" : "application/json"]
        let body = isImage ? [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] : Array("{}".utf8)
        for token in [nil, "not-a-token"] as [String?] {
            let result = try client.send(method, path, token: token, body: body, headers: headers)
            #expect(result.status == 401, "\(route) with token \(token ?? "none")")
            #expect(result.code == "unauthorized")
            #expect(result.header("WWW-Authenticate") == "Bearer")
        }
    }

    @Test(arguments: Transport.allCases)
    func inventoryKindMustBeKnown(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("kind")
        let result = try client.send("GET", "/me/items?kind=hat", token: account.token)
        #expect(result.status == 400 && result.code == "invalid_field")
    }
}

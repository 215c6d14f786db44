// Transport: one test body, two ways to reach the server (Hummingbird's `.router` / `.live`).
// `inProcess` calls Pipeline.respond(to:) directly, with no socket: it keeps the pipeline
// callable without libmicrohttpd, as Pipeline.swift claims. `socket` talks HTTP/1.1 to the
// server this test process started. HTTP end-to-end tests take `transport: Transport` as an
// argument (`@Test(arguments: Transport.allCases)`) and send through `transport.client`.
import FocusIsland
import Foundation

enum Transport: String, CaseIterable, Sendable {
    /// Pipeline.respond(to:) in this process: routing, body checks, SQL and the response.
    case inProcess
    /// A real TCP connection to the HTTPServer (libmicrohttpd) in front of the same pipeline.
    case socket

    var client: Client { Client(transport: self) }
}

/// Sends a request through one transport; both answer with the same `HTTPResult`.
struct Client: Sendable {
    let transport: Transport

    /// `target` is the path with its query string, as it goes on the request line;
    /// `token` sets Authorization: Bearer; `json` sets the body and Content-Type: application/json.
    func send(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil,
        body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws -> HTTPResult {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if json != nil && headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        let payload = body ?? json.map { Array($0.utf8) }
        switch transport {
        case .inProcess:
            let request = InProcess.request(method, target, headers: headers, body: payload ?? [])
            return InProcess.result(try TestServer.pipeline().respond(to: request), method: method)
        case .socket:
            return try TestServer.client().send(method, target, headers: headers, body: payload)
        }
    }
}

/// What libmicrohttpd does between the socket and the pipeline, done in-process: split the
/// request target into path and query, decode them, and send only what HTTP sends back.
enum InProcess {
    static func request(_ method: String, _ target: String, headers: [String: String], body: [UInt8]) -> Request {
        let (path, query) =
            target.firstIndex(of: "?").map { (target[..<$0], target[target.index(after: $0)...]) }
            ?? (Substring(target), nil)
        return Request(
            method: method, path: unescape(path), query: query.map(arguments) ?? [:],
            headers: headers, body: body)
    }

    /// Query arguments as libmicrohttpd parses them: split at `&`, then at the first `=`; `+` is
    /// a space; a name without `=` has no value (the server reads it as ""); the last of a
    /// repeated name wins (HTTPServer.makeRequest keeps one value per name).
    static func arguments(_ query: Substring) -> [String: String] {
        var parts = query.split(separator: "&", omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true { parts.removeLast() }  // "a=1&" ends after "a=1"
        var arguments: [String: String] = [:]
        for part in parts {
            let plus = part.replacingOccurrences(of: "+", with: " ")
            if let equals = plus.firstIndex(of: "=") {
                arguments[unescape(plus[..<equals])] = unescape(plus[plus.index(after: equals)...])
            } else {
                arguments[unescape(Substring(plus))] = ""
            }
        }
        return arguments
    }

    /// %XX decoding as MHD_http_unescape: an escape that is not two hex digits stays as written.
    /// The server reads the result as a C string, so it ends at a decoded NUL.
    static func unescape(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The response as the socket client would read it: header names lower-cased, and no body
    /// for HEAD, 1xx, 204 or 304 (libmicrohttpd never sends one there).
    static func result(_ response: Response, method: String) -> HTTPResult {
        let bodiless = method == "HEAD" || (100..<200).contains(response.status) || [204, 304].contains(response.status)
        return HTTPResult(
            status: response.status,
            headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { _, last in last },
            body: bodiless ? [] : response.body)
    }
}

// register's two answers (docs/api-guide.md, "Signing up"): 201 keeps the token; 202 (a code
// mailed first, from a busy network) keeps none and tells the app to ask for the code, and the
// same sign-up with `code` signs in. Against a socket that answers as the server would, with
// the contract's own example of each answer.
import Foundation
import Testing

@testable import FocusIslandClient

#if canImport(Glibc)
    import Glibc

    @Suite struct RegisterTests {
        /// The example docs/openapi.json gives for register's answer of `status`.
        static func example(_ status: String) throws -> Data {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("docs/openapi.json")))
            let operation = (((document as? [String: Any])?["paths"] as? [String: Any])?["/auth/register"] as? [String: Any])?["post"]
            let response = ((operation as? [String: Any])?["responses"] as? [String: Any])?[status] as? [String: Any]
            let media = (response?["content"] as? [String: Any])?["application/json"] as? [String: Any]
            return try JSONSerialization.data(withJSONObject: try #require(media?["example"]))
        }

        /// Answers each sign-up as the server does past an address's budget: 202 without a code,
        /// 201 with one. Returns the port and what each request's body held.
        static func server(created: Data, mailed: Data) throws -> (port: UInt16, bodies: Locked<[String]>) {
            let (listener, port) = try CancellationTests.silentListener()
            let bodies = Locked<[String]>([])
            Thread {
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    var received = [UInt8]()
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    var body = ""
                    while true {
                        let count = read(connection, &buffer, buffer.count)
                        guard count > 0 else { break }
                        received += buffer[0..<count]
                        let text = String(decoding: received, as: UTF8.self)
                        guard let end = text.range(of: "\r\n\r\n") else { continue }
                        let length =
                            text[..<end.lowerBound].split(separator: "\r\n")
                            .first { $0.lowercased().hasPrefix("content-length:") }
                            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                        let head = text[..<end.upperBound].utf8.count
                        if received.count >= head + length {
                            body = String(decoding: received[head..<head + length], as: UTF8.self)
                            break
                        }
                    }
                    bodies.withValue { $0.append(body) }
                    let coded = body.contains(#""code""#)
                    let payload = coded ? created : mailed
                    let answer =
                        Array(
                            "HTTP/1.1 \(coded ? "201 Created" : "202 Accepted")\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
                                .utf8) + Array(payload)
                    _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, answer.count) }
                    close(connection)
                }
            }.start()
            return (port, bodies)
        }

        @Test func a202KeepsNoTokenAndTheSameSignUpWithTheCodeSignsIn() async throws {
            let (port, bodies) = try Self.server(created: try Self.example("201"), mailed: try Self.example("202"))
            let client = try FocusIslandClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
            let first = try await client.register(email: "ada@example.com", password: "correct horse", displayName: "Ada")
            let mailed = try #require(first.codeMailed)
            #expect(mailed.verification == "mailed" && mailed.codeExpiresIn == 900)
            #expect(first.signedIn == nil && client.token == nil, "no token until the code is sent")

            let second = try await client.register(
                email: "ada@example.com", password: "correct horse", displayName: "Ada", code: "01234567")
            let signedIn = try #require(second.signedIn)
            #expect(second.codeMailed == nil && client.token == signedIn.token)
            let sent = bodies.value
            #expect(sent.count == 2 && !sent[0].contains(#""code""#) && sent[1].contains(#""code":"01234567""#))
        }
    }
#endif

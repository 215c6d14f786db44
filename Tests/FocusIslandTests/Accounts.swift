// Helpers for end-to-end tests: accounts made through the real HTTP API.
import Foundation
import Testing

struct Account: Sendable {
    let id: String
    let email: String
    let token: String
}

extension HTTPClient {
    /// Registers a new account over HTTP and returns its id and token.
    func register(_ name: String = "user", password: String = "correct horse") throws -> Account {
        let email = TestEnvironment.email(name)
        let result = try send("POST", "/auth/register",
                              json: #"{"email":"\#(email)","password":"\#(password)","display_name":"\#(name)"}"#)
        guard result.status == 201, let token = result.json["token"] as? String,
              let user = result.json["user"] as? [String: Any], let id = user["id"] as? String else {
            throw HTTPClientError(description: "register failed: \(result.status) \(result.text)")
        }
        return Account(id: id, email: email, token: token)
    }
}

/// Runs `body` `count` times at once on separate threads and returns the results in order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = ResultBox<T>(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { index in
        results.set(index, Result { try body(index) })
    }
    return try results.values.map { try $0!.get() }
}

final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Result<T, Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<T, Error>) { lock.withLock { values[index] = value } }
}

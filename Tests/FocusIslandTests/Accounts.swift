// Helpers for end-to-end tests: accounts made through the real API, and requests at once.
import Foundation
import Synchronization
import Testing

struct Account: Sendable {
    let id: String
    let email: String
    let token: String
}

extension Client {
    /// Registers a new account through this client's transport and returns its id and token. Its
    /// email counts as verified (as if the mailed code were confirmed) unless `verified` is false,
    /// and it counts as made `age` ago (app.users.created_at; a year unless told): an established
    /// account, which may send gifts (their minimum age) and record sessions of any day a test
    /// builds (none starts before its account). A test about a new account passes `age: 0`.
    func register(
        _ name: String = "user", password: String = "correct horse", verified: Bool = true, age: Duration = .seconds(365 * 86_400)
    ) throws -> Account {
        let email = TestEnvironment.email(name)
        let result = try send(
            "POST", "/auth/register",
            json: #"{"email":"\#(email)","password":"\#(password)","display_name":"\#(name)"}"#)
        guard result.status == 201, let reply = try? result.decode(AuthReply.self) else {
            throw HTTPClientError(description: "register failed: \(result.status) \(result.text)")
        }
        try TestEnvironment.owner().execute(
            "update app.users set email_verified_at = case when $2 then now() end, created_at = now() - make_interval(secs => $3::integer) "
                + "where id = $1::uuid",
            [reply.user.id, verified ? "true" : "false", String(age.components.seconds)])
        return Account(id: reply.user.id, email: email, token: reply.token)
    }

    /// A new account signed in twice: its phone (the sign-up's token) and its iPad (a login).
    func registerOnTwoDevices(_ name: String) throws -> (phone: Account, iPad: Account) {
        let phone = try register(name)
        let login = try send("POST", "/auth/login", json: #"{"email":"\#(phone.email)","password":"correct horse"}"#)
        let token = try #require(login.json["token"] as? String, "login: \(login.status) \(login.text)")
        return (phone, Account(id: phone.id, email: phone.email, token: token))
    }
}

/// Runs `body` `count` times at once, each on a thread of its own released together with the
/// others, and returns the results in order. (DispatchQueue.concurrentPerform would run only
/// as many at a time as there are cores: two on CI, which is no race at all.)
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = ResultBox<T>(count: count)
    let start = Barrier(count)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        Thread {
            start.arriveAndWait()
            results.set(index, Result { try body(index) })
            done.leave()
        }.start()
    }
    done.wait()
    return try results.values.map { try $0!.get() }
}

/// Starts `body` `count` times, each on a thread of its own, and returns at once: the results
/// arrive in `results` (in order), and `done` is left when every one has (waiting long-polls).
func inBackground<T: Sendable>(
    _ count: Int = 1, _ body: @escaping @Sendable (Int) throws -> T
) -> (results: ResultBox<T>, done: DispatchGroup) {
    let results = ResultBox<T>(count: count)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        Thread {
            results.set(index, Result { try body(index) })
            done.leave()
        }.start()
    }
    return (results, done)
}

final class ResultBox<T: Sendable>: Sendable {
    private let results: Mutex<[Result<T, Error>?]>
    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
    var values: [Result<T, Error>?] { results.withLock { $0 } }
    func set(_ index: Int, _ value: Result<T, Error>) { results.withLock { $0[index] = value } }
}

/// Holds threads until `count` of them arrived, then lets them all go.
final class Barrier: Sendable {
    private let count: Int
    private let waiting: Mutex<Int>
    private let gate = DispatchSemaphore(value: 0)
    init(_ count: Int) {
        self.count = count
        waiting = Mutex(count)
    }

    func arriveAndWait() {
        let left = waiting.withLock { waiting in
            waiting -= 1
            return waiting
        }
        if left == 0 {
            for _ in 1..<max(1, count) { gate.signal() }
        } else if left > 0 {
            gate.wait()
        }
    }
}

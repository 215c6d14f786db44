// FocusIslandClient: the transport under the generated operations (Generated/Operations.swift).
// One `send` for every route: the bearer token, an Idempotency-Key on every unsafe request (the
// same one on each retry, so a retry never does anything twice), retries of transient failures
// with backoff, and the conditional-GET cache for the routes that answer 304.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Focus Island API. Thread-safe: share one per server (and per signed-in user).
public final class FocusIslandClient: Sendable {
    public let baseURL: URL
    /// baseURL's parts, checked once by `init`: every request's URL is built from them.
    private let baseComponents: URLComponents
    public let retryPolicy: RetryPolicy
    /// Also refuse an answer with members its model lacks (tests: keeps the document honest).
    public let strictDecoding: Bool
    /// Sent as Accept-Language with every request (e.g. "es-MX, es;q=0.9"): item and tip text
    /// come in the offered language it falls back to, else English. nil sends none (English).
    public let language: String?
    /// Sent as `X-Client-Version` on every request (`ios/1.2.9`): below the platform's minimum
    /// (`configGet()`) the server answers 426 upgrade_required; nil sends none (the CLI, tools).
    public let clientVersion: String?
    let session: URLSession
    let cache: ConditionalCache
    private let state: Locked<String?>

    /// `baseURL`: the server, e.g. https://api.focus-island.example; `token`: a bearer token
    /// kept from an earlier sign-in, if any. `configuration`: timeouts and the like; the client
    /// turns URLSession's own cache off (it keeps its own, by ETag). Throws
    /// `.invalidBaseURL` unless `baseURL` is an absolute http or https URL with a host and
    /// neither query nor fragment (a path, like /v1, is kept before every route's).
    /// `language`: the Accept-Language of every request (one client per language: its cache
    /// holds answers in that language). `clientVersion`: the app's `<platform>/<version>`, sent
    /// as X-Client-Version.
    public init(
        baseURL: URL, token: String? = nil, retryPolicy: RetryPolicy = RetryPolicy(),
        configuration: URLSessionConfiguration = .ephemeral, strictDecoding: Bool = false, language: String? = nil,
        clientVersion: String? = nil
    ) throws(FocusIslandError) {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil
        else { throw .invalidBaseURL(baseURL.absoluteString) }
        if components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath.removeLast() }
        guard components.url != nil else { throw .invalidBaseURL(baseURL.absoluteString) }
        self.baseURL = baseURL
        self.baseComponents = components
        self.retryPolicy = retryPolicy
        self.strictDecoding = strictDecoding
        self.language = language
        self.clientVersion = clientVersion
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration)
        self.cache = ConditionalCache()
        self.state = Locked(token)
    }

    /// The bearer token sent with every request; `signIn`-style calls (register, login, Apple
    /// and Google sign-in, reset confirm) set it, logout and account deletion clear it. Set it
    /// yourself to restore a session.
    public var token: String? {
        get { state.value }
        set { state.value = newValue }
    }

    /// Creates an account and keeps its token: `.created(SignedIn)`. From an address many people
    /// share (a school's network) the server may answer `.accepted(SignUpCodeMailed)` instead: a
    /// code was mailed to `email`; ask the person for it and call `register` again with the same
    /// values and `code` (the answer is then `.created`, the email verified). `timeZone`: an IANA
    /// name for the person's days (UTC when nil).
    @discardableResult
    public func register(
        email: String, password: String, displayName: String, timeZone: String? = nil, code: String? = nil
    ) async throws(FocusIslandError) -> AuthRegisterResponse {
        let answer = try await authRegister(
            RegisterBody(email: email, password: password, displayName: displayName, timeZone: timeZone, code: code))
        if case .created(let signedIn) = answer { token = signedIn.token }
        return answer
    }

    /// Signs in and keeps the token.
    @discardableResult
    public func login(email: String, password: String) async throws(FocusIslandError) -> SignedIn {
        let signedIn = try await authLogin(LoginBody(email: email, password: password))
        token = signedIn.token
        return signedIn
    }

    /// Signs in with Apple and keeps the token: `.ok` for a linked account, `.created` for a new
    /// one. `idToken` and `authorizationCode` are what ASAuthorizationAppleIDCredential gave;
    /// `nonce` is the raw nonce whose SHA-256 (lower-case hex) the app set on the request;
    /// `displayName` the name Apple gave (first sign-in only). A 409
    /// `account_exists_link_required`: sign in to that account, then `meIdentitiesCreate`.
    @discardableResult
    public func signInWithApple(
        idToken: String, nonce: String, authorizationCode: String? = nil, displayName: String? = nil,
        timeZone: String? = nil
    ) async throws(FocusIslandError) -> AuthAppleLoginResponse {
        let answer = try await authAppleLogin(
            AppleSignInBody(
                idToken: idToken, nonce: nonce, authorizationCode: authorizationCode, displayName: displayName,
                timeZone: timeZone))
        token = answer.value.token
        return answer
    }

    /// Signs in with Google and keeps the token, as `signInWithApple` (`nonce`: the one given to
    /// Google, if any).
    @discardableResult
    public func signInWithGoogle(
        idToken: String, nonce: String? = nil, displayName: String? = nil, timeZone: String? = nil
    ) async throws(FocusIslandError) -> AuthGoogleLoginResponse {
        let answer = try await authGoogleLogin(
            GoogleSignInBody(idToken: idToken, nonce: nonce, displayName: displayName, timeZone: timeZone))
        token = answer.value.token
        return answer
    }

    /// Revokes the token on the server and forgets it (and what the cache held for it). A token
    /// the server no longer knows (401) is forgotten too; after a transport failure it is kept,
    /// since it still works: try again.
    public func logout() async throws(FocusIslandError) {
        do throws(FocusIslandError) {
            try await authLogout()
        } catch let error where error.code == .unauthorized {
        }
        token = nil
        await cache.removeAll()
    }

    // MARK: Transport

    /// Sends one operation: retries transient failures, answers 304 from the cache, and throws
    /// `FocusIslandError` for a problem or a transport failure (`.cancelled` once the task is).
    func send(_ operation: OperationRequest) async throws(FocusIslandError) -> RawResponse {
        // One key for every attempt of this call: a retry whose first attempt did reach the
        // server is answered with the first answer, not done again.
        let key: String? =
            operation.method == "GET" ? nil : (operation.idempotencyKey ?? UUID().uuidString.lowercased())
        let token = self.token
        var request = URLRequest(url: url(operation.path, operation.query))
        request.httpMethod = operation.method
        if let timeout = operation.timeout { request.timeoutInterval = timeout }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let language { request.setValue(language, forHTTPHeaderField: "Accept-Language") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let clientVersion { request.setValue(clientVersion, forHTTPHeaderField: "X-Client-Version") }
        if let body = operation.body {
            request.httpBody = body
            request.setValue(operation.contentType ?? "application/json", forHTTPHeaderField: "Content-Type")
        }
        let cacheKey = operation.conditional ? ConditionalCache.key(request.url ?? baseURL, token: token) : nil
        var attempt = 0
        while true {
            attempt += 1
            var attemptRequest = request
            if let cacheKey, let etag = await cache.etag(cacheKey) {
                attemptRequest.setValue(etag, forHTTPHeaderField: "If-None-Match")
            }
            let failure: FocusIslandError
            do throws(FocusIslandError) {
                let (data, urlResponse) = try await fetch(attemptRequest)
                guard let http = urlResponse as? HTTPURLResponse else {
                    throw FocusIslandError.transport(URLError(.badServerResponse))
                }
                let response = RawResponse(status: http.statusCode, headers: http.headers, body: data)
                if response.status == 304, let cacheKey {
                    if let cached = await cache.response(cacheKey) { return cached }
                    // Evicted meanwhile: ask again without the ETag (not an attempt).
                    await cache.remove(cacheKey)
                    attempt -= 1
                    continue
                }
                if (200..<300).contains(response.status) {
                    if let cacheKey, let etag = response.headers["etag"] {
                        await cache.store(cacheKey, etag: etag, response: response)
                    }
                    return response
                }
                failure = FocusIslandError.problem(ServerProblem(response))
            } catch {
                if Task.isCancelled || error == .cancelled { throw .cancelled }
                failure = error
            }
            guard attempt < retryPolicy.maxAttempts, let delay = retryPolicy.delay(after: failure, attempt: attempt) else {
                throw failure
            }
            try await Self.sleep(seconds: delay)
        }
    }

    /// Task.sleep, whose only failure is cancellation, as `.cancelled`.
    static func sleep(seconds: TimeInterval) async throws(FocusIslandError) {
        do {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
        } catch {
            throw .cancelled
        }
    }

    /// Task.checkCancellation, as `.cancelled`.
    static func checkCancellation() throws(FocusIslandError) {
        if Task.isCancelled { throw .cancelled }
    }

    /// One exchange. Not `URLSession.data(for:)`: in swift-corelibs-foundation, cancelling the
    /// task that awaits it can deadlock (its cancellation handler cancels the URLSession task
    /// synchronously while the session's queue resumes the same task), and with two cores that
    /// stops every task of the process. Here the URLSession task is cancelled from another queue.
    /// Throws `.transport` (or `.cancelled` when the task was cancelled).
    func fetch(_ request: URLRequest) async throws(FocusIslandError) -> (Data, URLResponse) {
        do {
            return try await fetchUntyped(request)
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw FocusIslandError.wrapping(error)
        }
    }

    private func fetchUntyped(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let running = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                let cancelled = running.withValue { state in
                    state.task = task
                    return state.cancelled
                }
                task.resume()
                if cancelled { DispatchQueue.global().async { task.cancel() } }
            }
        } onCancel: {
            let task = running.withValue { state in
                state.cancelled = true
                return state.task
            }
            if let task { DispatchQueue.global().async { task.cancel() } }
        }
    }

    /// The base URL's components (checked by `init`) with `path` after its path and `query`.
    /// Never fails: the generated paths are percent-encoded already (UUIDs, enum values, digits).
    func url(_ path: String, _ query: [URLQueryItem]) -> URL {
        var components = baseComponents
        components.percentEncodedPath += path
        if !query.isEmpty {
            components.queryItems = query
            // A literal + would read as a space: time offsets (+02:00) must arrive as +.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        // The base alone makes a URL (init checked it); a path of the document's characters
        // and encoded query items keep it one. Should that ever fail, the base is asked for
        // and the server answers 404 rather than the app crashing.
        return components.url ?? baseURL
    }

    static func encode<T: Encodable>(_ value: T) throws(FocusIslandError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(value)
        } catch {
            throw .encoding(type: String(describing: T.self), description: "\(error)")
        }
    }

    func decode<T: Codable>(_ type: T.Type, from response: RawResponse) throws(FocusIslandError) -> T {
        let value: T
        do {
            value = try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw FocusIslandError.decoding(type: String(describing: type), status: response.status, description: "\(error)")
        }
        if strictDecoding {
            // The model written back must say what the server said: a member the model does not
            // know (a field the document lacks) would be lost silently otherwise.
            let said: JSONValue
            let kept: JSONValue
            do {
                said = try JSONDecoder().decode(JSONValue.self, from: response.body).normalized
                kept = try JSONDecoder().decode(JSONValue.self, from: FocusIslandClient.encode(value)).normalized
            } catch {
                throw FocusIslandError.wrapping(error, type: String(describing: type), status: response.status)
            }
            if said != kept {
                throw FocusIslandError.decoding(
                    type: String(describing: type), status: response.status,
                    description: "the model does not keep the whole answer: \(said.difference(from: kept))")
            }
        }
        return value
    }
}

/// What a generated operation asks `send` for.
struct OperationRequest: Sendable {
    var method: String
    var path: String
    var query: [URLQueryItem]
    var body: Data?
    var contentType: String?
    var idempotencyKey: String?
    /// The route answers 304 to If-None-Match: keep its answers by ETag.
    var conditional: Bool
    /// The success statuses the document lists.
    var statuses: [Int]
    /// This request's own timeout (a long-poll waits longer than most answers take).
    var timeout: TimeInterval? = nil
}

/// A response as received: header names lower-cased.
public struct RawResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
}

extension AuthRegisterResponse {
    /// The new account and its token, when the sign-up is done (201).
    public var signedIn: SignedIn? {
        if case .created(let signedIn) = self { signedIn } else { nil }
    }

    /// What the server mailed, when it asks for the mailed code first (202).
    public var codeMailed: SignUpCodeMailed? {
        if case .accepted(let mailed) = self { mailed } else { nil }
    }
}

extension HTTPURLResponse {
    var headers: [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return headers
    }
}

/// When to try again, and how long to wait.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The first backoff; each next one doubles, up to `maxDelay`, with up to 50 % jitter added.
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// A 429 or 503 whose Retry-After is longer than this is not waited for: it is thrown.
    public var maxRetryAfter: TimeInterval

    public init(maxAttempts: Int = 4, baseDelay: TimeInterval = 0.2, maxDelay: TimeInterval = 5, maxRetryAfter: TimeInterval = 10) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Seconds to wait before the next attempt, or nil when `failure` is final. Transient:
    /// a connection that failed, dropped or timed out; 408, 502, 503 and 504; a 429 that says
    /// how long to wait (Retry-After) when that is at most `maxRetryAfter`.
    public func delay(after failure: FocusIslandError, attempt: Int) -> TimeInterval? {
        let backoff = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
        let jittered = backoff * Double.random(in: 1...1.5)
        switch failure {
        case .transport(let error):
            let transient: Set<URLError.Code> = [
                .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
                .cannotFindHost, .dnsLookupFailed, .badServerResponse, .resourceUnavailable, .secureConnectionFailed,
                .zeroByteResource, .cannotParseResponse,
            ]
            return transient.contains(error.code) ? jittered : nil
        case .problem(let problem):
            if let retryAfter = problem.retryAfter {
                guard [429, 503].contains(problem.status), retryAfter <= maxRetryAfter else { return nil }
                return max(retryAfter, jittered)
            }
            return [408, 502, 503, 504].contains(problem.status) ? jittered : nil
        case .decoding, .encoding, .unexpectedStatus, .cancelled, .invalidBaseURL, .storage:
            return nil
        }
    }
}

/// A value behind a lock, for the little mutable state the client shares between tasks.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { withValue { $0 } }
        set { withValue { $0 = newValue } }
    }

    /// lock() and unlock() by hand: NSLocking.withLock is newer than iOS 16 and macOS 13.
    func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }
}

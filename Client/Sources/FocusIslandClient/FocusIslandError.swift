// FocusIslandError: every failure of a call, typed. A problem (RFC 9457) carries its stable
// `code` (docs/errors.md) as `ProblemCode`; a transport failure its URLError. Every public
// throwing API of the library is `throws(FocusIslandError)`: what Foundation throws inside
// (URLError, DecodingError, EncodingError, file errors, CancellationError) is mapped here.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public enum FocusIslandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a problem (4xx or 5xx).
    case problem(ServerProblem)
    /// No answer: the connection failed, dropped or timed out (after the retries).
    case transport(URLError)
    /// An answer that does not decode as the document says (a bug: the server's or this client's).
    case decoding(type: String, status: Int, description: String)
    /// A body that could not be encoded as JSON (a Double that is NaN or infinite, say): nothing was sent.
    case encoding(type: String, description: String)
    /// A success status the document does not list.
    case unexpectedStatus(Int)
    /// The task that awaited the call was cancelled: the call ended without its answer (an
    /// unsafe request may still have reached the server; its Idempotency-Key makes a retry safe).
    case cancelled
    /// `FocusIslandClient(baseURL:)` was given a URL that is not an absolute http(s) URL
    /// without a query or fragment; the string is the URL given.
    case invalidBaseURL(String)
    /// SessionQueue could not read or write its file (`path`): unreadable, not a queue, disk full.
    case storage(path: String, description: String)

    /// The problem's code, for a problem.
    public var code: ProblemCode? {
        if case .problem(let problem) = self { return problem.code }
        return nil
    }

    /// The HTTP status, for a problem.
    public var status: Int? {
        switch self {
        case .problem(let problem): problem.status
        case .unexpectedStatus(let status): status
        case .decoding(_, let status, _): status
        case .transport, .encoding, .cancelled, .invalidBaseURL, .storage: nil
        }
    }

    /// The problem's sentence for people.
    public var detail: String? {
        if case .problem(let problem) = self { return problem.detail }
        return nil
    }

    /// Retry-After in seconds, when the server gave one.
    public var retryAfter: TimeInterval? {
        if case .problem(let problem) = self { return problem.retryAfter }
        return nil
    }

    public var description: String {
        switch self {
        case .problem(let problem): "\(problem.status) \(problem.code): \(problem.detail)"
        case .transport(let error): "transport: \(error.code.rawValue) \(error.localizedDescription)"
        case .decoding(let type, let status, let description): "a \(status) answer did not decode as \(type): \(description)"
        case .encoding(let type, let description): "\(type) could not be encoded: \(description)"
        case .unexpectedStatus(let status): "unexpected status \(status)"
        case .cancelled: "cancelled"
        case .invalidBaseURL(let url): "not an absolute http(s) base URL: \(url)"
        case .storage(let path, let description): "\(path): \(description)"
        }
    }

    /// Any error thrown inside the library, as a FocusIslandError: itself; CancellationError as
    /// `.cancelled`; a URLError (or an NSError of NSURLErrorDomain) as `.transport`; a
    /// DecodingError as `.decoding` of `type`; an EncodingError as `.encoding`; anything else as
    /// `.transport(URLError(.unknown))` carrying its description.
    static func wrapping(_ error: any Error, type: String = "?", status: Int = 0) -> FocusIslandError {
        switch error {
        case let error as FocusIslandError: return error
        case is CancellationError: return .cancelled
        case let error as URLError: return .transport(error)
        case is DecodingError: return .decoding(type: type, status: status, description: "\(error)")
        case is EncodingError: return .encoding(type: type, description: "\(error)")
        default:
            let error = error as NSError
            if error.domain == NSURLErrorDomain {
                return .transport(URLError(URLError.Code(rawValue: error.code) ?? .unknown, userInfo: error.userInfo))
            }
            return .transport(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"]))
        }
    }
}

/// A problem answer: the document's `Problem` when it decodes, and the headers that matter.
public struct ServerProblem: Sendable, Equatable {
    public var status: Int
    public var code: ProblemCode
    public var detail: String
    /// Retry-After, in seconds (429, 503).
    public var retryAfter: TimeInterval?
    /// The whole problem (field, balance, price, id), when the body was one.
    public var problem: Problem?

    public init(status: Int, code: ProblemCode, detail: String, retryAfter: TimeInterval? = nil, problem: Problem? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
        self.retryAfter = retryAfter
        self.problem = problem
    }

    init(_ response: RawResponse) {
        let problem = try? JSONDecoder().decode(Problem.self, from: response.body)
        self.init(
            status: response.status,
            code: problem.map { ProblemCode(rawValue: $0.code) } ?? .unknown("http_\(response.status)"),
            detail: problem?.detail ?? String(decoding: response.body.prefix(200), as: UTF8.self),
            retryAfter: response.headers["retry-after"].flatMap(TimeInterval.init),
            problem: problem)
    }
}

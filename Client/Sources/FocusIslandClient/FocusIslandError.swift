// FocusIslandError: every failure of a call, typed. A problem (RFC 9457) carries its stable
// `code` (docs/errors.md) as `ProblemCode`; a transport failure its URLError.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

public enum FocusIslandError: Error, Sendable, CustomStringConvertible {
    /// The server answered with a problem (4xx or 5xx).
    case problem(ServerProblem)
    /// No answer: the connection failed, dropped or timed out (after the retries).
    case transport(URLError)
    /// An answer that does not decode as the document says (a bug: the server's or this client's).
    case decoding(type: String, status: Int, description: String)
    /// A success status the document does not list.
    case unexpectedStatus(Int)

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
        case .transport: nil
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
        case .unexpectedStatus(let status): "unexpected status \(status)"
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

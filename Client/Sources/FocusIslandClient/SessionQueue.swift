// SessionQueue: focus sessions recorded while offline, kept in a JSON file the app chooses and
// sent through POST /focus-sessions/batch (100 at a time) when the network is back. A session
// with a final answer (recorded, replayed, or refused with a 4xx) leaves the queue; a request
// that fails in transit leaves everything queued for the next flush. The server recognises a
// session by its id, so sending one twice records it once.
import Foundation

public actor SessionQueue {
    /// What one flush did.
    public struct FlushResult: Sendable, Equatable {
        /// Recorded (201) or already recorded (200): the session, the balance and any tip.
        public var applied: [SessionBatchApplied] = []
        /// Refused for good (4xx): the session, and why.
        public var rejected: [Rejection] = []
        /// Still queued (nothing was sent, or the request failed in transit).
        public var remaining: Int = 0
    }

    public struct Rejection: Sendable, Equatable {
        public var item: SessionBatchItem
        public var problem: Problem
    }

    /// The batch route's limit.
    public static let batchSize = 100

    public let fileURL: URL
    private let client: FocusIslandClient
    private var items: [SessionBatchItem]

    /// Opens the queue kept in `fileURL` (created on the first enqueue). Throws `.storage`
    /// when the file is there but cannot be read or is not a queue.
    public init(fileURL: URL, client: FocusIslandClient) throws(FocusIslandError) {
        self.fileURL = fileURL
        self.client = client
        if FileManager.default.fileExists(atPath: fileURL.path) {
            do {
                items = try JSONDecoder().decode([SessionBatchItem].self, from: Data(contentsOf: fileURL))
            } catch {
                throw .storage(path: fileURL.path, description: "\(error)")
            }
        } else {
            items = []
        }
    }

    /// The sessions waiting to be sent, oldest first.
    public var pending: [SessionBatchItem] { items }

    /// Queues a finished session (and its rating, if any) and writes the file before returning
    /// (`.storage` when it cannot be written).
    public func enqueue(_ item: SessionBatchItem) throws(FocusIslandError) {
        if let index = items.firstIndex(where: { $0.id == item.id }) {
            items[index] = item  // rated after it was queued: the newer wins
        } else {
            items.append(item)
        }
        try save()
    }

    /// Takes a session out of the queue unsent (the app discards it, or a whole batch is
    /// refused because of it: a 400 for the request leaves everything queued).
    public func remove(id: UUID) throws(FocusIslandError) {
        items.removeAll { $0.id == id }
        try save()
    }

    /// Sends what is queued. Throws only when a request fails (offline, say): what was not
    /// answered stays queued, and batches answered before the failure have left it.
    @discardableResult
    public func flush() async throws(FocusIslandError) -> FlushResult {
        var result = FlushResult()
        while !items.isEmpty {
            let batch = Array(items.prefix(Self.batchSize))
            let answer = try await client.focusSessionsBatchCreate(SessionBatchBody(sessions: batch))
            for (item, outcome) in zip(batch, answer.results) {
                switch outcome {
                case .applied(let applied): result.applied.append(applied)
                case .rejected(let rejected): result.rejected.append(Rejection(item: item, problem: rejected.problem))
                }
            }
            let answered = Set(batch.prefix(answer.results.count).map(\.id))
            items.removeAll { answered.contains($0.id) }
            try save()
        }
        result.remaining = items.count
        return result
    }

    private func save() throws(FocusIslandError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let directory = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try encoder.encode(items).write(to: fileURL, options: .atomic)
        } catch {
            throw .storage(path: fileURL.path, description: "\(error)")
        }
    }
}

// ConditionalCache: the last 200 of each conditional GET (catalog, friends, friend requests,
// avatars, the document), kept by ETag in memory. The next call sends If-None-Match and a 304
// is answered from here. Keyed by URL and token, so two accounts never see each other's lists.
import Foundation

actor ConditionalCache {
    private struct Entry {
        var etag: String
        var response: RawResponse
    }

    /// Entries kept: the oldest stored goes first beyond it (avatars could be many).
    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    init(capacity: Int = 256) { self.capacity = capacity }

    static func key(_ url: URL, token: String?) -> String {
        // The token's hash (this process's), not the token: the cache never holds it twice.
        "\(token.map { String($0.hashValue) } ?? "-") \(url.absoluteString)"
    }

    func etag(_ key: String) -> String? { entries[key]?.etag }

    func response(_ key: String) -> RawResponse? {
        guard var response = entries[key]?.response else { return nil }
        response.headers["x-focus-island-client-cache"] = "hit"
        return response
    }

    func store(_ key: String, etag: String, response: RawResponse) {
        if entries[key] == nil { order.append(key) }
        entries[key] = Entry(etag: etag, response: response)
        while order.count > capacity { entries[order.removeFirst()] = nil }
    }

    func remove(_ key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }

    func removeAll() {
        entries = [:]
        order = []
    }

    /// How many answers are kept (tests).
    var count: Int { entries.count }
}

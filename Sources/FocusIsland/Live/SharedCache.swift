// SharedCache: the server's copy of shared, slowly changing answers (the catalog, the tips, one
// entry per language, since the language is among the parameters of the key; the config answer and
// the release controls admission reads from it) and of the languages Accept-Language is negotiated
// against, so their 200s and 304s cost no database round trip. HTTP caching, not a business rule: an
// entry is exactly the reply SQL gave for exactly that request (function, query, body), and
// SQL still decides what the catalog is and which tips a phone lacks.
//
// An entry is trusted only while the listener holds its LISTEN connection: a broadcast event
// (`catalog.changed`, `tips.changed`, any `*:` notification) empties the cache, and so do a
// lost and a regained listener (a notification may have been missed meanwhile), so the next
// request reloads from SQL. A reply fetched while the cache was emptied is not stored (the
// generation moved), so a reload racing a re-seed never keeps the older answer.
// The catalog also changes with the clock alone (a sale's or a seasonal item's start or end):
// the scheduled job shop_windows announces catalog.changed within the minute after each one
// (docs/shop.md).
// `state` guards every field: read by every request (admission's release controls at least),
// written on a miss or an event, so behind a read-write lock (Support/ReadMostly.swift).

public final class SharedCache: Sendable {
    /// Public endpoints whose answer is the same for everyone and changes only with a
    /// broadcast event. Per-user answers are never cached in the server.
    static let functions: Set<String> = ["api.shop_items_list", "api.mindfulness_tips_sync", "api.config_get"]
    /// Bounds: sync bodies are up to 1 MiB each, so the distinct bodies kept are few.
    static let maxEntries = 64, maxBytes = 8 << 20

    private struct State {
        var listening = false
        var generation: UInt64 = 0
        var entries: [String: Reply] = [:]
        /// Whole responses (HTTP/SharedAnswers.swift, `preparedKey`), counted in `bytes` too.
        var prepared: [String: Prepared] = [:]
        var bytes = 0
        /// api.languages_offered(), English first; nil until asked again after an empty.
        var languages: [String]?
        /// The config answer's release controls, parsed, for admission (ReleaseControls.swift).
        var controls: ReleaseControls?

        /// Whether `size` more bytes may be kept, fetched at `generation` into a map now holding
        /// `entries`: false while no listener is held or after an empty since; past the bounds
        /// every answer kept is dropped first. Counts the bytes when true.
        mutating func room(_ size: Int, entries: Int, generation expected: UInt64) -> Bool {
            guard listening, generation == expected, size <= SharedCache.maxBytes else { return false }
            if entries >= SharedCache.maxEntries || bytes + size > SharedCache.maxBytes {
                self.entries.removeAll()
                prepared.removeAll()
                bytes = 0
            }
            bytes += size
            return true
        }

        /// Drops every entry; a reply fetched before this is not stored.
        mutating func empty() {
            generation &+= 1
            entries.removeAll()
            prepared.removeAll()
            bytes = 0
            languages = nil
            controls = nil
        }
    }
    private let state = ReadMostly(State())

    public init() {}

    enum Lookup {
        case hit(Reply)
        /// Not cached: ask SQL, then `store` with this generation.
        case miss(UInt64)
        /// No listener: nothing is kept, every request asks SQL.
        case off
    }

    func lookup(_ key: String) -> Lookup {
        state.read { state in
            guard state.listening else { return .off }
            if let reply = state.entries[key] { return .hit(reply) }
            return .miss(state.generation)
        }
    }

    func store(_ key: String, _ reply: Reply, generation expected: UInt64) {
        let size = key.utf8.count + (reply.body?.count ?? 0) + (reply.etag?.utf8.count ?? 0)
        state.write { state in
            guard state.room(size, entries: state.entries.count, generation: expected) else { return }
            state.entries[key] = reply
        }
    }

    /// A cached function's whole answer to a request that sends nothing else it reads but its
    /// Accept-Language: the 200 as the pipeline made it and its 304, so that neither the key's
    /// JSON nor the response is made again for each phone asking for the catalog.
    struct Prepared: Sendable {
        let fresh: Response
        let notModified: Response
        /// The ETag as sent, quoted (If-None-Match is compared with it).
        let tag: String
    }

    func lookupPrepared(_ key: String) -> Prepared? {
        state.read { state in state.listening ? state.prepared[key] : nil }
    }

    func storePrepared(_ key: String, _ answer: Prepared, generation expected: UInt64) {
        let size = key.utf8.count + answer.fresh.body.count
        state.write { state in
            // Accept-Language is each phone's own text: the distinct ones kept are bounded too.
            guard state.room(size, entries: state.prepared.count, generation: expected) else { return }
            state.prepared[key] = answer
        }
    }

    /// A value kept beside the answers (the offered languages, the release controls).
    enum Kept<Value: Sendable> {
        case hit(Value)
        /// Not kept: read it from SQL, then store it with this generation.
        case miss(UInt64)
        /// No listener: every request reads it from SQL.
        case off
    }

    /// The offered languages. Any change to app.languages announces catalog.changed and
    /// tips.changed, which empty the cache and these with it.
    func lookupLanguages() -> Kept<[String]> {
        kept { $0.languages }
    }

    func storeLanguages(_ languages: [String], generation expected: UInt64) {
        store(\.languages, languages, generation: expected)
    }

    /// The config answer's release controls, parsed, for admission.
    func lookupControls() -> Kept<ReleaseControls> {
        kept { $0.controls }
    }

    func storeControls(_ controls: ReleaseControls, generation expected: UInt64) {
        store(\.controls, controls, generation: expected)
    }

    /// A field read by a closure, not a key path: each request reads two (the release controls,
    /// the languages), and a key path is applied by the runtime's generic code each time.
    private func kept<Value: Sendable>(_ field: (borrowing State) -> Value?) -> Kept<Value> {
        state.read { state in
            guard state.listening else { return .off }
            if let value = field(state) { return .hit(value) }
            return .miss(state.generation)
        }
    }

    private func store<Value: Sendable>(_ field: WritableKeyPath<State, Value?>, _ value: Value, generation expected: UInt64) {
        state.write { state in
            guard state.listening, state.generation == expected else { return }
            state[keyPath: field] = value
        }
    }

    /// A shared answer changed (a broadcast event): forget everything.
    public func invalidate() {
        state.write { $0.empty() }
    }

    /// The listener connected (true) or lost its connection (false); either way what is kept
    /// may be stale, so it is dropped.
    public func setListening(_ value: Bool) {
        state.write { state in
            state.listening = value
            state.empty()
        }
    }

    /// Entries kept now (tests).
    public var count: Int {
        state.read { $0.entries.count }
    }

    /// Whole answers kept now (tests).
    public var preparedCount: Int {
        state.read { $0.prepared.count }
    }
}

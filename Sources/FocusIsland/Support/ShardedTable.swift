// ShardedTable: a dictionary that many threads change at once, cut into shards by key, each
// behind its own lock. A table every request changes on every HTTP thread, behind one Mutex,
// became a lock convoy with 8 threads on 2 cores (Swift's Mutex spins, then hands itself to the
// next waiter: docs/performance.md, "Locks on the request path"); here two threads meet on a
// lock only when their keys share a shard.
import Synchronization

final class ShardedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Shard: Sendable {
        let table = Mutex<[Key: Value]>([:])
    }
    private let shards: [Shard]

    init(shards count: Int = 64) {
        shards = (0..<max(count, 1)).map { _ in Shard() }
    }

    /// `body` reads or changes the shard that holds `key`, alone.
    func withShard<Result>(of key: Key, _ body: (inout [Key: Value]) -> Result) -> Result {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))].table.withLock { body(&$0) }
    }

    subscript(key: Key) -> Value? {
        get { withShard(of: key) { $0[key] } }
    }

    func set(_ key: Key, _ value: Value?) {
        withShard(of: key) { $0[key] = value }
    }

    /// `body` over every shard in turn, each alone while it runs (not a snapshot of the whole).
    func forEachShard(_ body: (inout [Key: Value]) -> Void) {
        for shard in shards { shard.table.withLock { body(&$0) } }
    }

    /// Entries now, shard by shard.
    var count: Int {
        var count = 0
        forEachShard { count += $0.count }
        return count
    }
}

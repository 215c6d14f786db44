import Foundation
import Testing

// The request path's shared tables (Sources/FocusIsland/Support/ShardedTable.swift and
// ReadMostly.swift): what many threads change at once is all there afterwards, nothing lost
// between shards, and a reader never sees a write half done.
@testable import FocusIsland

@Suite struct LockTests {
    @Test func aShardedTableKeepsEveryThreadsEntries() async {
        let table = ShardedTable<Int32, Int>(shards: 8)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for n in 0..<1_000 { table.set(Int32(thread * 1_000 + n), n) }
                    // Half of them go again, changed in place and removed.
                    for n in stride(from: 0, to: 1_000, by: 2) {
                        table.withShard(of: Int32(thread * 1_000 + n)) { $0[Int32(thread * 1_000 + n)]! += 1 }
                        table.set(Int32(thread * 1_000 + n), nil)
                    }
                }
            }
        }
        #expect(table.count == 4_000)
        #expect(table[Int32(1)] == 1 && table[Int32(7_999)] == 999 && table[Int32(2)] == nil)
        var seen = 0
        table.forEachShard { seen += $0.count }
        #expect(seen == 4_000)
    }

    @Test func aReadMostlyValueIsNeverSeenHalfWritten() async {
        // Two fields that a writer always changes together.
        let pair = ReadMostly((a: 0, b: 0))
        let torn = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for n in 1...20_000 { pair.write { $0 = (n, n) } }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var torn = 0
                    for _ in 0..<20_000 where pair.read({ $0.a != $0.b }) { torn += 1 }
                    return torn
                }
            }
            return await group.reduce(0, +)
        }
        #expect(torn == 0)
        #expect(pair.read { $0.a } == 20_000)
    }
}

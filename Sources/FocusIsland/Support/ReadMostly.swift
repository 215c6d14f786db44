// ReadMostly: a value that every request reads and few write, behind pthread's read-write lock.
// Swift's Mutex lets one thread in at a time, spins, then hands itself to the next waiter (a
// priority-inheriting futex): a lock every request took, on 8 HTTP threads over 2 cores, formed
// a convoy that held the health check to a third of its rate (Server/HeadDeadline.swift, 2026-12-07).
// Here readers pass one another without waiting, and a waiting writer goes first (writer
// preference), so an event's emptying of the cache is not starved by the stream of reads.
import Glibc

final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is read only under the read lock and changed only under the write lock.
    private var value: Value
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// `body` reads the value; other readers may read it at the same time.
    func read<Result>(_ body: (borrowing Value) -> Result) -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(value)
    }

    /// `body` changes the value, alone.
    func write<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body(&value)
    }
}

// RequestIDs: the id each answer carries in X-Request-Id and its log line. A client's own id is
// kept when it is short and printable; otherwise the server makes one from a random prefix drawn
// once per process and a counter, so a request costs an atomic add, not a getrandom call.
import Synchronization

public final class RequestIDs: Sendable {
    /// 48 random bits: two processes (a restart, a second server) do not share ids.
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    public init() {
        let random = UInt64.random(in: 0..<(1 << 48))
        let hex = String(random, radix: 16)
        prefix = String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// The client's id if it is 1 to 128 printable ASCII characters, else the next of ours.
    public func id(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count),
            header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f })
        {
            return header
        }
        let next = counter.wrappingAdd(1, ordering: .relaxed).newValue
        var id = prefix
        id.reserveCapacity(29)  // the prefix, "-", 16 hex digits at most: one allocation
        id += "-"
        id += String(next, radix: 16)
        return id
    }
}

// JSONText: a model the library decoded, written back as the server's JSON for --json. The
// models' coding keys are the server's names, so encoding one gives the server's object, with
// two differences: Foundation writes UUIDs in upper case (put back in lower case here, as the
// server writes them). A member the schema requires but allows null is written as null, as the
// server sent it (the generated models encode it so); a member the server may leave out is left
// out when absent.

import Foundation

enum JSONText {
    /// One line of compact JSON, keys sorted, ids in lower case.
    static func line(_ value: some Encodable) -> Data? {
        let encoder = JSONEncoder()
        guard let data = try? encoder.encode(value) else { return nil }
        return line(data)
    }

    /// Compacts JSON bytes to one line (keys sorted, ids in lower case); nil if they are not JSON.
    static func line(_ data: Data) -> Data? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return try? JSONSerialization.data(
            withJSONObject: lowercasingIds(value), options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    }

    /// A JSON object as a dictionary (an event's data), or an empty one.
    static func dictionary(_ value: some Encodable) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(value),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    private static func lowercasingIds(_ value: Any) -> Any {
        switch value {
        case let text as String:
            return UUID(uuidString: text) != nil && text.count == 36 ? text.lowercased() : text
        case let array as [Any]:
            return array.map(lowercasingIds)
        case let object as [String: Any]:
            return object.mapValues(lowercasingIds)
        default:
            return value
        }
    }
}

// JSONValue: any JSON, for the document's free-form objects (an event's data, the document itself).
import Foundation

public enum JSONValue: Codable, Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A member of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        if case .number(let value) = self { return Int(exactly: value) }
        return nil
    }

    /// Decodes this value as `T` (an event's data as the model it carries, say).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }

    /// Null members dropped (a model leaves a nil optional out) and UUIDs lower-cased (Foundation
    /// writes them upper-case): two answers equal as the API means them compare equal.
    var normalized: JSONValue {
        switch self {
        case .object(let members):
            return .object(members.filter { $0.value != .null }.mapValues(\.normalized))
        case .array(let values):
            return .array(values.map(\.normalized))
        case .string(let text) where UUID(uuidString: text) != nil:
            return .string(text.lowercased())
        default:
            return self
        }
    }

    /// The first place where two values differ, as a path (for error messages).
    func difference(from other: JSONValue, at path: String = "$") -> String {
        switch (self, other) {
        case (.object(let left), .object(let right)):
            for key in Set(left.keys).union(right.keys).sorted() {
                guard let l = left[key], let r = right[key] else { return "\(path).\(key) only on one side" }
                if l != r { return l.difference(from: r, at: "\(path).\(key)") }
            }
        case (.array(let left), .array(let right)) where left.count == right.count:
            for (index, (l, r)) in zip(left, right).enumerated() where l != r {
                return l.difference(from: r, at: "\(path)[\(index)]")
            }
        default:
            break
        }
        return "\(path): \(self) vs \(other)"
    }
}

// Template: the pages' HTML (web/*.html) with a small part of Mustache: `{{name}}` and
// `{{a.b}}` insert a value, `{{#name}}…{{/name}}` repeats for each element of a list or shows
// once for a true value or an object (whose fields come first in lookups inside), and
// `{{^name}}…{{/name}}` shows when the value is missing, false, null or an empty list.
// Every inserted value is HTML-escaped; there is no way to insert one unescaped, so no
// user-supplied string can become markup (docs/web.md).
import Foundation

/// A JSON value as a page shows it.
public enum PageValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([PageValue])
    case object([String: PageValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([PageValue].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: PageValue].self))
        }
    }

    /// Parses JSON text; anything that is not JSON is null.
    public static func parse(_ bytes: [UInt8]) -> PageValue {
        (try? JSONDecoder().decode(PageValue.self, from: Data(bytes))) ?? .null
    }

    /// Whether a section shows (Mustache's truthiness).
    var shows: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .list(let values): !values.isEmpty
        case .string(let text): !text.isEmpty
        case .number, .object: true
        }
    }

    /// The text a `{{name}}` inserts, before escaping.
    var text: String {
        switch self {
        case .null, .list, .object: ""
        case .bool(let value): value ? "true" : ""
        case .string(let text): text
        case .number(let value):
            value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }
}

public struct Template: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case value([String])
        case section([String], inverted: Bool, [Node])
    }

    let nodes: [Node]

    /// Parses a template; an unclosed or mismatched section is an error naming it.
    public init(_ source: String, name: String) throws(ConfigurationError) {
        var index = source.startIndex
        var stack: [(path: String, inverted: Bool, nodes: [Node])] = [("", false, [])]
        while index < source.endIndex {
            guard let open = source.range(of: "{{", range: index..<source.endIndex) else {
                stack[stack.count - 1].nodes.append(.text(String(source[index...])))
                break
            }
            if open.lowerBound > index { stack[stack.count - 1].nodes.append(.text(String(source[index..<open.lowerBound]))) }
            guard let close = source.range(of: "}}", range: open.upperBound..<source.endIndex) else {
                throw ConfigurationError(variable: "WEB_DIR", reason: "\(name): a {{ without }}")
            }
            let tag = source[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            index = close.upperBound
            switch tag.first {
            case "#", "^":
                stack.append((String(tag.dropFirst()), tag.first == "^", []))
            case "/":
                let ended = String(tag.dropFirst())
                guard stack.count > 1, let last = stack.popLast(), last.path == ended else {
                    throw ConfigurationError(variable: "WEB_DIR", reason: "\(name): {{/\(ended)}} closes nothing open")
                }
                stack[stack.count - 1].nodes.append(.section(Self.path(last.path), inverted: last.inverted, last.nodes))
            default:
                guard !tag.isEmpty, tag.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
                    throw ConfigurationError(variable: "WEB_DIR", reason: "\(name): {{\(tag)}} is not a name")
                }
                stack[stack.count - 1].nodes.append(.value(Self.path(tag)))
            }
        }
        guard stack.count == 1 else {
            throw ConfigurationError(variable: "WEB_DIR", reason: "\(name): {{#\(stack[stack.count - 1].path)}} is not closed")
        }
        nodes = stack[0].nodes
    }

    static func path(_ tag: String) -> [String] { tag.split(separator: ".").map(String.init) }

    /// The page for `context`: every value escaped.
    public func render(_ context: PageValue) -> String {
        var out = ""
        Self.render(nodes, [context], into: &out)
        return out
    }

    private static func render(_ nodes: [Node], _ stack: [PageValue], into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .value(let path):
                out += escape(lookup(path, stack).text)
            case .section(let path, let inverted, let children):
                let value = lookup(path, stack)
                if inverted {
                    if !value.shows { render(children, stack, into: &out) }
                } else if case .list(let values) = value {
                    for element in values { render(children, stack + [element], into: &out) }
                } else if value.shows {
                    render(children, stack + [value], into: &out)
                }
            }
        }
    }

    /// The first name found from the innermost context outwards, then the rest of the path in it.
    static func lookup(_ path: [String], _ stack: [PageValue]) -> PageValue {
        guard let first = path.first else { return .null }
        for context in stack.reversed() {
            guard case .object(let fields) = context, var value = fields[first] else { continue }
            for name in path.dropFirst() {
                guard case .object(let inner) = value, let next = inner[name] else { return .null }
                value = next
            }
            return value
        }
        return .null
    }

    /// HTML text and attribute values (always double-quoted in the templates).
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

// Lookup: an argument that names something (an item, a friend, a request) matched against a
// list the server gave: an id in any case, else the name ignoring case, else the one name that
// starts so. No match, or two things with one name, is an error that says what the choices are.

import Foundation

enum Lookup {
    /// The one candidate whose id is `argument` or whose name is `argument` (ignoring case).
    /// `what` names the kind of thing in the messages ("item", "friend").
    static func one<T>(_ argument: String, in candidates: [T], what: String, ids: (T) -> [UUID], name: (T) -> String) throws(CLIError) -> T
    {
        if let id = UUID(uuidString: argument), let match = candidates.first(where: { ids($0).contains(id) }) {
            return match
        }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        var matches = candidates.filter { name($0).compare(argument, options: options) == .orderedSame }
        // No whole name: the start of one will do when only one starts so ("mochi": Mochi the Cat).
        if matches.isEmpty {
            matches = candidates.filter { name($0).range(of: argument, options: options.union(.anchored)) != nil }
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty {
            let names = candidates.map(name)
            let known =
                names.count > 6 ? names.prefix(5).joined(separator: ", ") + " and \(names.count - 5) more" : names.joined(separator: ", ")
            throw CLIError(.refused, "No \(what) named \(argument)" + (names.isEmpty ? "." : " (there are \(known))."))
        }
        let names = matches.map(name).joined(separator: ", ")
        throw CLIError(.refused, "\(matches.count) \(what)s match \(argument) (\(names)): give the whole name or the id.")
    }

    /// The only candidate when no argument names one; an error when there are none or several.
    static func only<T>(_ candidates: [T], what: String, name: (T) -> String) throws(CLIError) -> T {
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty { throw CLIError(.refused, "No \(what) pending.") }
        let names = candidates.map(name).joined(separator: ", ")
        throw CLIError(.usage, "\(candidates.count) \(what)s pending (\(names)): say which.")
    }
}

// Arguments: what the command line leaves a command past its own words, and the readers its
// parse uses (a count of words, a page, a day, minutes), each failing with a usage error before
// anything is sent. The command's usage line comes along, so "wrong arguments" says the command's
// own syntax without restating it.

/// The words after a command's own, its value options and its usage line.
struct Arguments: Sendable {
    /// The positional words after the command's own ("bo@example.com" in `focus friends add bo@example.com`).
    var words: [String] = []
    /// The value options given (`--limit 20`: "limit": "20"), as `Invocation.values` holds them.
    var options: [String: String] = [:]
    /// `--follow` (`-f`) was given.
    var follow = false
    /// The command's usage line ("focus friends add EMAIL"), for `wrong`.
    var usage = ""

    /// The usage error for arguments the command does not take: its usage line.
    var wrong: CLIError { .usage("usage: \(usage)") }

    /// The words joined by spaces, so a name with spaces needs no quotes ("Mochi the Cat"); nil
    /// when there are none.
    var text: String? { words.isEmpty ? nil : words.joined(separator: " ") }

    /// `text`, when there is at least one word; else `wrong`.
    func requiredText() throws(CLIError) -> String {
        guard let text else { throw wrong }
        return text
    }

    /// The words, when there are as many as `allowed` says; else `wrong`.
    @discardableResult
    func count(_ allowed: ClosedRange<Int>) throws(CLIError) -> [String] {
        guard allowed.contains(words.count) else { throw wrong }
        return words
    }

    /// The words, when there are at least `minimum`; else `wrong`.
    func count(atLeast minimum: Int) throws(CLIError) -> [String] {
        guard words.count >= minimum else { throw wrong }
        return words
    }

    /// `--limit` (a whole number from 1; the server says how many at most) and `--cursor`.
    func page() throws(CLIError) -> Page {
        var page = Page(cursor: options["cursor"])
        if let text = options["limit"] {
            guard let limit = Int(text), limit >= 1 else { throw .usage("--limit must be a whole number from 1, not \(text)") }
            page.limit = limit
        }
        return page
    }

    /// A `--from` or `--to` day (the option's name): YYYY-MM-DD (the server refuses a day that
    /// does not exist); nil when not given.
    func day(_ option: String) throws(CLIError) -> String? {
        guard let text = options[option] else { return nil }
        let digits = text.split(separator: "-", omittingEmptySubsequences: false)
        guard digits.map(\.count) == [4, 2, 2], digits.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            throw .usage("a day is YYYY-MM-DD, not \(text)")
        }
        return text
    }

    /// A session's or a room's planned minutes: a whole number from 1 to 180.
    static func minutes(_ text: String) throws(CLIError) -> Int {
        guard let minutes = Int(text), (1...180).contains(minutes) else {
            throw .usage("minutes must be a whole number from 1 to 180, not \(text)")
        }
        return minutes
    }
}

/// One page of a list: at most `limit` rows (the server's default when nil), after `cursor` (the
/// `next_cursor` a previous page printed; nil: the first page).
struct Page: Equatable, Sendable {
    var limit: Int?
    var cursor: String?
}

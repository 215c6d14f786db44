// AcceptLanguage: which of the offered languages answers a request, from its Accept-Language
// header: RFC 9110 §12.5.4 (ranges with quality values) and RFC 4647 §3.4 "lookup" (es-MX
// falls back to es), English when nothing matches. HTTP negotiation, not a business rule: the
// offered languages are the database's (api.languages_offered()), and SQL answers the
// translated rows of the language picked here (docs/languages.md).
//
// A malformed header is never an error: a member that is not `range[;q=value]` is skipped and
// the rest is used; a header with nothing usable is no header (English).

public enum AcceptLanguage {
    /// The language every answer falls back to: the catalog's and the tips' own.
    public static let fallback = "en"
    /// Members read from one header; the rest are ignored (a head is at most 8 KiB anyway).
    static let maxRanges = 32

    /// One member of the header: a language range (lower case) and its weight in thousandths.
    struct Range: Equatable {
        var tag: String
        var quality: Int
    }

    /// The tag of `offered` (spelled as offered) that answers `header`, else `fallback`.
    public static func negotiate(_ header: String?, offered: [String]) -> String {
        let ranges = Self.ranges(header)
        let refused = Set(ranges.filter { $0.quality == 0 }.map(\.tag))
        var byTag: [String: String] = [:]
        for tag in offered { byTag[tag.lowercased()] = tag }
        for range in ranges where range.quality > 0 && range.tag != "*" {
            for candidate in truncations(range.tag) where !refused.contains(candidate) {
                if let tag = byTag[candidate] { return tag }
            }
        }
        return fallback
    }

    /// The header's usable members, most preferred first (equal weights keep their order).
    static func ranges(_ header: String?) -> [Range] {
        guard let header else { return [] }
        var ranges: [Range] = []
        for member in header.split(separator: ",", omittingEmptySubsequences: true).prefix(maxRanges) {
            if let range = parse(member) { ranges.append(range) }
        }
        // A stable sort: Array.sort is not guaranteed stable, so sort by (weight, position).
        return ranges.enumerated().sorted { a, b in
            a.element.quality != b.element.quality ? a.element.quality > b.element.quality : a.offset < b.offset
        }.map(\.element)
    }

    /// `language-range [ OWS ";" OWS "q=" qvalue ]`, or nil when malformed.
    static func parse(_ member: Substring) -> Range? {
        let parts = member.split(separator: ";", omittingEmptySubsequences: false)
        let tag = parts[0].trimming(" \t").lowercased()
        guard isRange(tag) else { return nil }
        var quality = 1000
        for parameter in parts.dropFirst() {
            let text = parameter.trimming(" \t")
            guard text.hasPrefix("q=") || text.hasPrefix("Q="), let value = qvalue(text.dropFirst(2)) else {
                return nil
            }
            quality = value
        }
        return Range(tag: tag, quality: quality)
    }

    /// `"*"` or `1*8ALPHA *("-" 1*8alphanum)` (RFC 4647 §2.1 basic range), already lower case.
    static func isRange(_ tag: String) -> Bool {
        if tag == "*" { return true }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (1...8).contains(first.count),
            first.utf8.allSatisfy({ (0x61...0x7a).contains($0) })
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count)
                && subtag.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) }
        }
    }

    /// `"0" [ "." 0*3DIGIT ]` or `"1" [ "." 0*3("0") ]`, in thousandths.
    static func qvalue(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0] == "0" || parts[0] == "1" else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard digits.count <= 3, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            fraction = Int(digits.padding(toLength: 3)) ?? 0
        }
        let value = (parts[0] == "1" ? 1000 : 0) + fraction
        return value <= 1000 ? value : nil
    }

    /// RFC 4647 §3.4: the tag, then with its last subtag removed (and a single-character subtag
    /// left at the end removed too), down to the language: zh-hant-cn-x-a → zh-hant-cn, zh-hant, zh.
    static func truncations(_ tag: String) -> [String] {
        var subtags = tag.split(separator: "-").map(String.init)
        var out: [String] = []
        while !subtags.isEmpty {
            out.append(subtags.joined(separator: "-"))
            subtags.removeLast()
            while subtags.count > 1, subtags.last?.count == 1 { subtags.removeLast() }
        }
        return out
    }
}

extension Substring {
    /// Right-padded with "0" to `length` characters (a qvalue's fraction in thousandths).
    fileprivate func padding(toLength length: Int) -> String {
        String(self) + String(repeating: "0", count: Swift.max(0, length - count))
    }
}

// Conditional: If-None-Match against an answer's ETag (RFC 9110 §13.1.2): weak comparison, a
// list of tags, or "*"; a match makes the answer 304 without its body.

extension Pipeline {
    static func matches(ifNoneMatch: String?, tag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        // What a client sends back is the one tag it was given: compared whole, without the split.
        if ifNoneMatch == tag { return true }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let value = candidate.trimming(" \t")
            return value == "*" || value == tag || value == "W/" + tag
        }
    }
}

extension Response {
    /// 304 without its body and Content-Type when `ifNoneMatch` holds `tag`.
    mutating func revalidate(ifNoneMatch: String?, tag: String) {
        guard Pipeline.matches(ifNoneMatch: ifNoneMatch, tag: tag) else { return }
        status = 304
        body = []
        headers.removeAll { $0.name == "Content-Type" }
    }
}

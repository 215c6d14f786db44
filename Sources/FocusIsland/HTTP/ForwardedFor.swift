// ForwardedFor: the client's address behind trusted proxies, from X-Forwarded-For or
// Forwarded (RFC 7239). Decided 2026-12-05 (docs/operations.md, "The client's address"):
//
//   * The headers count only when the connection's address (the TCP peer, or the source a
//     PROXY protocol header announced) is in TRUSTED_PROXIES; from anyone else they are
//     ignored whole, since anyone can write them.
//   * X-Forwarded-For wins when both are present (what haproxy's `option forwardfor` and most
//     balancers write); Forwarded is read only without it. A balancer that writes Forwarded
//     must therefore drop a client's X-Forwarded-For.
//   * Several header lines are one list, in the order received; empty list elements are skipped.
//   * The list is walked from the right (the hop nearest to us) leftwards, past every entry that
//     is itself a trusted proxy; the first that is not is the client. Entries left of it were
//     written by the client and are never read.
//   * Every entry trusted: the left-most one (a balancer's own request, a health check).
//   * An entry that is not an address (garbage, `unknown`, an obfuscated `_name`, a Forwarded
//     element without `for=`) stops the walk: the client is the last trusted hop before it (the
//     entry to its right, or the connection's own address). What lies left of it came through
//     a hop we cannot name, so nothing there is trusted.
//
// Accepted forms: X-Forwarded-For `203.0.113.7`, `2001:db8::1`, `203.0.113.7:4711`,
// `[2001:db8::1]:4711`; Forwarded `for=203.0.113.7`, `for="203.0.113.7:4711"`,
// `for="[2001:db8::1]:4711"` (parameter names in any case, values quoted or not).

enum ForwardedFor {
    /// The client's address for a connection from `connection`, given every line of each
    /// header as received.
    static func client(
        connection: IPAddress, forwarded: [String], xForwardedFor: [String], trusted: TrustedProxies
    ) -> IPAddress {
        guard trusted.contains(connection) else { return connection }
        let listed = xForwardedForHops(xForwardedFor)
        let hops = listed.isEmpty ? forwardedHops(forwarded) : listed
        var client = connection
        for hop in hops.reversed() {
            guard let address = hop else { return client }
            client = address
            if !trusted.contains(address) { return address }
        }
        return client
    }

    // MARK: X-Forwarded-For

    /// The entries of every line, left to right; nil for one that is not an address.
    static func xForwardedForHops(_ lines: [String]) -> [IPAddress?] {
        lines.flatMap { line in
            line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimming(" \t") }
                .filter { !$0.isEmpty }
                .map { node($0, bracketsRequiredForIPv6: false) }
        }
    }

    // MARK: Forwarded

    /// The `for=` of each element of every line, left to right; nil for an element without a
    /// usable one (malformed, `unknown`, obfuscated, or missing).
    static func forwardedHops(_ lines: [String]) -> [IPAddress?] {
        lines.flatMap { line -> [IPAddress?] in
            let (elements, malformed) = forwardedTail(line)
            return (malformed ? [nil] : [])
                + elements.map { pairs in
                    let values = pairs.filter { $0.name.lowercased() == "for" }.map(\.value)
                    guard values.count == 1 else { return nil }  // missing, or twice (RFC 7239 forbids it)
                    return node(values[0], bracketsRequiredForIPv6: true)
                }
        }
    }

    /// A line's elements, or when the line is malformed, those of its longest well-formed tail
    /// after a comma (`malformed` true: the walk stops left of them). A balancer that appends its
    /// own element to the client's line (nginx's `$http_forwarded, for=…`, Envoy) must not lose it
    /// to the client's garbage: `for="x, for=203.0.113.9` is the client's unterminated quote and
    /// the balancer's element, and the client is 203.0.113.9. Tails are tried from the right and
    /// grown while they parse, so nothing left of the first malformed point is ever read.
    static func forwardedTail(_ line: String) -> (elements: [[(name: String, value: String)]], malformed: Bool) {
        if let whole = forwardedElements(line) { return (whole, false) }
        var best: [[(name: String, value: String)]] = []
        for comma in line.indices.reversed() where line[comma] == "," {
            guard let tail = forwardedElements(String(line[line.index(after: comma)...])) else { break }
            best = tail
        }
        return (best, true)
    }

    /// One line's elements (separated by commas), each its pairs (separated by semicolons),
    /// quoted strings unquoted; nil when the line is malformed (no `=`, an unterminated quote).
    static func forwardedElements(_ line: String) -> [[(name: String, value: String)]]? {
        var elements: [[(name: String, value: String)]] = []
        var pairs: [(name: String, value: String)] = []
        var characters = Substring(line)
        func skipSpace() { while let first = characters.first, first == " " || first == "\t" { characters.removeFirst() } }
        while true {
            skipSpace()
            guard let first = characters.first else { break }
            if first == "," || first == ";" {
                characters.removeFirst()
                if first == "," {
                    if !pairs.isEmpty { elements.append(pairs) }
                    pairs = []
                }
                continue
            }
            let name = characters.prefix { $0 != "=" && $0 != "," && $0 != ";" }
            characters.removeFirst(name.count)
            guard characters.first == "=" else { return nil }
            characters.removeFirst()
            var value = ""
            if characters.first == "\"" {
                characters.removeFirst()
                var closed = false
                while let next = characters.popFirst() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\" {
                        guard let escaped = characters.popFirst() else { return nil }
                        value.append(escaped)
                    } else {
                        value.append(next)
                    }
                }
                guard closed else { return nil }
            } else {
                value = String(characters.prefix { $0 != "," && $0 != ";" })
                characters.removeFirst(value.count)
            }
            let trimmedName = name.trimming(" \t")
            guard !trimmedName.isEmpty else { return nil }
            pairs.append((trimmedName, value.trimming(" \t")))
            skipSpace()
            guard characters.isEmpty || characters.first == "," || characters.first == ";" else { return nil }
        }
        if !pairs.isEmpty { elements.append(pairs) }
        return elements
    }

    // MARK: Nodes

    /// An address with an optional port: `a.b.c.d`, `a.b.c.d:port`, `[v6]`, `[v6]:port`, and
    /// (in X-Forwarded-For only) a bare `v6`. nil for anything else.
    static func node(_ text: String, bracketsRequiredForIPv6: Bool) -> IPAddress? {
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let inside = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard inside.contains(":"), rest.isEmpty || (rest.first == ":" && isPort(rest.dropFirst())) else { return nil }
            return IPAddress(inside)
        }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1 || !parts[1].contains(":") {
            guard !parts[0].contains(":"), parts[0].contains("."), parts.count == 1 || isPort(parts[1]) else { return nil }
            return IPAddress(parts[0])
        }
        return bracketsRequiredForIPv6 ? nil : IPAddress(text)
    }

    /// A port: 1 to 5 digits, or RFC 7239's obfuscated `_name`.
    private static func isPort(_ text: Substring) -> Bool {
        if text.first == "_" {
            return text.count > 1
                && text.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
        }
        return (1...5).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

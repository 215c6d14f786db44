// AcceptLanguage without a server: RFC 9110 weights, RFC 4647 lookup, malformed members skipped.
import Testing

@testable import FocusIsland

@Suite struct AcceptLanguageTests {
    let offered = ["en", "es", "pt-BR", "zh-Hant"]

    @Test(
        arguments: [
            (nil, "en"),
            ("", "en"),
            ("es", "es"),
            ("ES", "es"),
            ("fr", "en"),
            ("es-MX", "es"),  // lookup: es-mx, then es
            ("pt-br", "pt-BR"),  // spelled as offered
            ("pt-PT", "en"),  // pt is not offered, pt-BR is not a fallback of pt-PT
            ("zh-Hant-TW", "zh-Hant"),
            ("zh-Hant-x-a", "zh-Hant"),  // a single-letter subtag left at the end goes too
            ("fr;q=0.9, es;q=0.8", "es"),
            ("es;q=0.5, pt-BR;q=0.8", "pt-BR"),  // by weight, not by order
            ("es;q=0.5, pt-BR;q=0.5", "es"),  // equal weights keep the header's order
            ("de, *;q=0.1", "en"),  // * conveys nothing in lookup
            ("es;q=0", "en"),
            ("es-MX, es;q=0", "en"),  // es refused: es-MX does not fall back to it
            ("es ; q=0.7 , en;q=0.1", "es"),  // whitespace around members and parameters
            ("es;q=1.000", "es"),
            ("es;q=1.001", "en"),  // above 1: skipped
            ("es;q=0.0001", "en"),  // four decimals: skipped
            ("es;level=1", "en"),  // only q: another parameter makes the member malformed
            ("e$, es;q=0.5", "es"),
            ("abcdefghi", "en"),  // a subtag longer than 8
            ("es--MX", "en"),
            ("1es", "en"),
        ] as [(String?, String)])
    func negotiates(header: String?, expected: String) {
        #expect(AcceptLanguage.negotiate(header, offered: offered) == expected)
    }

    @Test func onlyTheFirst32MembersAreRead() {
        let header = Array(repeating: "xx", count: 32).joined(separator: ", ") + ", es"
        #expect(AcceptLanguage.negotiate(header, offered: offered) == "en")
        let within = Array(repeating: "xx", count: 31).joined(separator: ", ") + ", es"
        #expect(AcceptLanguage.negotiate(within, offered: offered) == "es")
    }

    @Test func truncationsFollowRFC4647() {
        #expect(
            AcceptLanguage.truncations("zh-hant-cn-x-private1-private2") == [
                "zh-hant-cn-x-private1-private2", "zh-hant-cn-x-private1", "zh-hant-cn", "zh-hant", "zh",
            ])
    }
}

import FocusIslandClient
import Foundation
import Testing

@Suite struct ProblemCodeTests {
    @Test func knownAndUnknownCodesRoundTrip() {
        #expect(ProblemCode(rawValue: "insufficient_funds") == .insufficientFunds)
        #expect(ProblemCode.insufficientFunds.rawValue == "insufficient_funds")
        #expect(ProblemCode(rawValue: "a_code_from_the_future") == .unknown("a_code_from_the_future"))
    }
}

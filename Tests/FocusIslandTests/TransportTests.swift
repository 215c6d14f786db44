// The in-process transport stands in for libmicrohttpd only if it reads a request target the
// same way: odd targets must get the same answer through both transports.
import Foundation
import Testing

@Suite struct TransportTests {
    @Test(arguments: [
        ("/me/items?kind=p%65t", 200),  // an escaped query value
        ("/me/items?kind=pet&kind=hat", 400),  // the last of a repeated name wins
        ("/me/items?kind", 400),  // a name without a value is empty
        ("/me/items?kind=pet+", 400),  // + is a space in a query
        ("/me/items?kind=pet%2B", 400),  // an escaped + is a plus
        ("/me/items?kind=pet&", 200),  // a trailing & adds nothing
        ("/me/it%65ms", 200),  // an escaped path
        ("/me%2Fitems", 200),  // an escaped slash is a slash once decoded
        ("/me/items?kind=pe%zzt", 400),  // a malformed escape stays as written
        ("/leaderboards/daily?scope=friends&limit=5", 200),
    ])
    func bothTransportsReadATargetAlike(target: String, status: Int) throws {
        let account = try Transport.socket.client.register("parity")
        let answers = try TestEnvironment.withinOneUTCDay { _ in  // a leaderboard names its day
            try Transport.allCases.map { try $0.client.send("GET", target, token: account.token) }
        }
        #expect(answers.map(\.status) == [status, status])
        #expect(answers[0].text == answers[1].text)
        #expect(answers[0].header("Content-Type") == answers[1].header("Content-Type"))
    }
}

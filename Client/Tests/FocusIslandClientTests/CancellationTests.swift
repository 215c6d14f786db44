// Cancelling calls in flight ends them, and never deadlocks: swift-corelibs-foundation's
// URLSession.data(for:) could, which with two cores stopped every task of the process.
import Foundation
import Testing

@testable import FocusIslandClient

#if canImport(Glibc)
    import Glibc

    @Suite struct CancellationTests {
        /// A socket that accepts connections (the kernel does, from the backlog) and never answers.
        static func silentListener() throws -> (socket: Int32, port: UInt16) {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(listener, pointer, length) == 0 && listen(listener, 128) == 0
                        && getsockname(listener, pointer, &length) == 0
                }
            }
            try #require(bound)
            return (listener, UInt16(bigEndian: address.sin_port))
        }

        /// Answers every request at once, on a thread per connection.
        static func quickResponder() throws -> (socket: Int32, port: UInt16) {
            let (listener, port) = try silentListener()
            Thread {
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { return }
                    Thread {
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        let body = #"{"events":[],"next":1}"#
                        let answer = Array(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
                        while read(connection, &buffer, buffer.count) > 0 {
                            usleep(UInt32.random(in: 0...2000))
                            _ = answer.withUnsafeBytes { send(connection, $0.baseAddress!, answer.count, Int32(MSG_NOSIGNAL)) }
                        }
                        close(connection)
                    }.start()
                }
            }.start()
            return (listener, port)
        }

        @Test func callsCancelledAsTheirAnswersArriveNeverDeadlock() async throws {
            let (listener, port) = try Self.quickResponder()
            defer {
                shutdown(listener, Int32(SHUT_RDWR))
                close(listener)
            }
            let client = try FocusIslandClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "t")
            for _ in 1...40 {
                let calls = (1...16).map { _ in Task { try await client.eventsList() } }
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...3_000_000))
                for call in calls { call.cancel() }
                for call in calls { _ = await call.result }
            }
        }

        @Test func cancelledCallsEndAndNothingDeadlocks() async throws {
            let (listener, port) = try Self.silentListener()
            defer { close(listener) }
            let client = try FocusIslandClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "t")
            for _ in 1...5 {
                let calls = (1...8).map { _ in Task { try await client.meGet() } }
                let polls = (1...4).map { _ in
                    Task {
                        for try await _ in client.events(after: 1, options: EventsOptions(mode: .longPoll)) {}
                    }
                }
                try await Task.sleep(nanoseconds: 100_000_000)
                for call in calls { call.cancel() }
                for poll in polls { poll.cancel() }
                for call in calls {
                    await #expect(throws: FocusIslandError.cancelled) { _ = try await call.value }
                }
                for poll in polls { _ = await poll.result }
            }
        }
    }
#endif

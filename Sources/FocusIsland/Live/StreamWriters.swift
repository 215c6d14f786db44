// StreamWriters: the sockets of SSE streams once their headers are out.
//
// Why: libmicrohttpd gives every connection a memory pool (16 KiB here) and zeroes most of it
// while answering, so 10,000 idle streams held 150 MB. A stream only ever writes small frames:
// after its 200 and headers, libmicrohttpd hands the socket over (Server/MHD/EventsEndpoint.swift
// duplicates the descriptor and ends the response, whose body is delimited by the close; with
// MHD_USE_TURBO libmicrohttpd closes its own descriptor without shutdown(), so the connection
// stays open on ours), and a stream then costs its LiveClient and one epoll entry.
//
// A few threads, each with an epoll set and an eventfd for its doorbell:
//   - a wake (the listener, the ticker) queues a sleeping client on its thread and rings;
//   - the thread runs the client: a fetch (SQL), a heartbeat or the end, then writes its bytes;
//   - a full socket waits for EPOLLOUT; the client's hang-up (EPOLLRDHUP, a read of 0) ends it;
//   - a stop ends it after its retry hint (EventStreams.retryHint), or at once (`endAll`) when
//     the hint could not be written within STOP_GRACE.
// Only its own thread runs a client, so the client's pending bytes need no lock.
import CLinux
import Foundation
import Synchronization

final class StreamWriters: Sendable {
    private let writers: [StreamWriter]
    private let next = Atomic<Int>(0)
    private let addresses = AddressCounts()

    /// `fetch` asks SQL for a client's next events (HTTPServer.fetch(into:)); false ends it.
    init(threads: Int, streams: EventStreams, fetch: @escaping @Sendable (LiveClient) -> Bool) {
        let count = max(1, threads)
        var writers: [StreamWriter] = []
        for index in 0..<count {
            writers.append(StreamWriter(index: index, streams: streams, addresses: addresses, fetch: fetch))
        }
        self.writers = writers
        for writer in writers { writer.start() }
    }

    /// Streams whose sockets the writers hold: they count toward CONNECTION_LIMIT.
    var open: Int { writers.reduce(0) { $0 + $1.open } }

    /// Streams held for one client address: PER_IP_CONNECTION_LIMIT applies to them apart
    /// from the connections libmicrohttpd counts.
    func open(from address: String) -> Int { addresses.count(address) }

    /// Takes over `socket` (a descriptor of the client's own) for an SSE stream whose headers
    /// were sent. False if it could not be watched: the caller closes the socket.
    func adopt(_ client: LiveClient, socket: Int32, address: String) -> Bool {
        let writer = writers[next.add(1, ordering: .relaxed).newValue % writers.count]
        return writer.adopt(client, socket: socket, address: address)
    }

    /// Ends every stream still held (a stop whose hints could not all be written in time).
    func endAll() {
        for writer in writers { writer.endAll() }
    }
}

/// Open streams by client address.
final class AddressCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func count(_ address: String) -> Int { counts.withLock { $0[address] ?? 0 } }

    func add(_ address: String, _ change: Int) {
        counts.withLock { counts in
            let count = (counts[address] ?? 0) + change
            counts[address] = count > 0 ? count : nil
        }
    }
}

final class StreamWriter: @unchecked Sendable {
    private let index: Int
    private let streams: EventStreams
    private let addresses: AddressCounts
    private let fetch: @Sendable (LiveClient) -> Bool
    private let epoll: Int32
    private let bell: Int32
    /// Clients woken since the thread last looked. Lock order: a client's lock, then this.
    private let ready = Mutex<[LiveClient]>([])
    /// Streams by socket. Lock order: this, then a client's lock, then `ready`.
    private let sockets = Mutex<[Int32: (client: LiveClient, address: String)]>([:])
    /// `endAll` was asked: the thread ends every stream it holds at its next look.
    private let ending = Atomic<Bool>(false)

    init(index: Int, streams: EventStreams, addresses: AddressCounts, fetch: @escaping @Sendable (LiveClient) -> Bool) {
        self.index = index
        self.streams = streams
        self.addresses = addresses
        self.fetch = fetch
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        bell = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: bell))
        epoll_ctl(epoll, EPOLL_CTL_ADD, bell, &event)
    }

    var open: Int { sockets.withLock { $0.count } }

    fileprivate func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "events-writer-\(index)"
        thread.start()
    }

    /// Watches the socket and runs the client once (its first bytes, its backlog). The lookup
    /// in `loop` waits for `sockets`, so no event of the socket is handled before this ends.
    func adopt(_ client: LiveClient, socket: Int32, address: String) -> Bool {
        sockets.withLock { sockets in adopt(client, socket: socket, address: address, into: &sockets) }
    }

    private func adopt(
        _ client: LiveClient, socket: Int32, address: String,
        into sockets: inout [Int32: (client: LiveClient, address: String)]
    ) -> Bool {
        let mask = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        var event = epoll_event(events: mask, data: epoll_data_t(fd: socket))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else { return false }
        // libmicrohttpd may have left the socket corked for a body it expected to follow the
        // headers: frames are small and must leave at once.
        var off: Int32 = 0
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        sockets[socket] = (client, address)
        addresses.add(address, 1)
        client.adopt(socket: socket, writer: self)
        schedule(client)
        return true
    }

    /// Has the thread end every stream it holds, hinted or not.
    func endAll() {
        ending.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(bell, &one, 8)
    }

    /// Queues a client to run on this writer's thread (called by LiveClient.wake, under its lock).
    func schedule(_ client: LiveClient) {
        ready.withLock { $0.append(client) }
        var one: UInt64 = 1
        _ = write(bell, &one, 8)
    }

    private func loop() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 { continue }  // EINTR
            for event in events.prefix(Int(count)) {
                let socket = event.data.fd
                if socket == bell {
                    var value: UInt64 = 0
                    _ = read(bell, &value, 8)
                    let woken = ready.withLock { ready in
                        let woken = ready
                        ready.removeAll()
                        return woken
                    }
                    for client in woken where client.socket >= 0 { run(client) }
                    if ending.load(ordering: .acquiring) {
                        for client in sockets.withLock({ $0.values.map(\.client) }) { end(client) }
                    }
                    continue
                }
                let client = sockets.withLock { $0[socket]?.client }
                guard let client else { continue }
                if event.events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 || !drain(socket) {
                    end(client)
                } else if event.events & EPOLLOUT.rawValue != 0 && client.sent < client.pending.count {
                    run(client)
                }
            }
        }
    }

    /// Reads and drops what the client sent (nothing is expected); false once it hung up.
    private func drain(_ socket: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 512)
        while true {
            let count = recv(socket, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        }
    }

    /// Works for one client until it sleeps, ends, or its socket is full (EPOLLOUT continues).
    private func run(_ client: LiveClient) {
        while true {
            switch flush(client) {
            case .blocked: return
            case .failed: return end(client)
            case .done: break
            }
            switch client.next() {
            case .close where !client.hinted:
                // The server stops: the hint is the last frame, then the stream ends (once it
                // is written: a full socket continues at EPOLLOUT and comes back here).
                client.hinted = true
                client.pending += Array(EventStreams.retryHint(cursor: client.cursor).utf8)
            case .close, .expire: return end(client)
            case .fetch: if !fetch(client) { return end(client) }
            case .retry:
                if !fetch(client) { return end(client) }
                client.pending += Array(": heartbeat\n\n".utf8)
            case .heartbeat: client.pending += Array(": heartbeat\n\n".utf8)
            case .sleep: return
            }
        }
    }

    private enum Flush { case done, blocked, failed }

    private func flush(_ client: LiveClient) -> Flush {
        while client.sent < client.pending.count {
            let count = client.pending.withUnsafeBytes { bytes in
                send(client.socket, bytes.baseAddress! + client.sent, bytes.count - client.sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .blocked : .failed
            }
            client.sent += count
        }
        client.pending = []  // a large batch's buffer is not kept for an idle stream
        client.sent = 0
        return .done
    }

    /// Closes the stream: its epoll entry (removed first: libmicrohttpd may still hold the
    /// other descriptor, and then closing ours alone would not remove it), the connection
    /// itself (shutdown: while libmicrohttpd still holds its descriptor, a close alone would
    /// leave the client waiting on a stream that ended, e.g. one whose token ended just after
    /// it opened), the socket, the client's registration.
    private func end(_ client: LiveClient) {
        let socket = client.socket
        guard socket >= 0 else { return }
        epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil)
        if let address = sockets.withLock({ $0.removeValue(forKey: socket)?.address }) { addresses.add(address, -1) }
        client.finish()
        client.socket = -1
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        streams.unregister(client)
    }
}

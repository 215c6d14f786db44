// Daemon: one libmicrohttpd daemon, the one type both listeners run on: the public port
// (MHD/HTTPServer.swift, with its own callbacks) and the metrics port (Server/MetricsServer.swift,
// which gives an answer per method and path and never sees libmicrohttpd).
// It resolves the address, checks the library's version when connections are handed off,
// starts the daemon with the caller's threads, limits and callbacks, tells the port actually
// bound, and stops gracefully: no new connection (quiesce, and the listening socket shut down so
// that the kernel refuses instead of queueing), the caller's drain, then the stop itself. The
// public port closes its listener first and stops later (MHD/GracefulStop.swift).
//
// Server/MHD/ is the only folder that imports CMicroHTTPD: everything else holds plain Swift
// values (Request, Response) or an HTTPConnection handle (MHD/HTTPConnection.swift).
import CLinux
import CMicroHTTPD
import Glibc
import Synchronization

public struct ServerError: Error, CustomStringConvertible {
    public let description: String
}

final class Daemon: Sendable {
    /// Limits libmicrohttpd leaves open by default; nil keeps libmicrohttpd's own.
    struct Limits {
        /// Worker threads of an epoll thread pool; nil: one internal polling thread.
        var threads: Int? = nil
        /// Seconds an idle connection is kept.
        var idleTimeout: Int
        /// Connections libmicrohttpd accepts at once.
        var connectionLimit: Int
        var perIPConnectionLimit: Int? = nil
        /// Bytes of memory pool per connection (grown 1 KiB at a time).
        var connectionMemory: Int? = nil
        var listenBacklog: Int? = nil
    }

    /// libmicrohttpd's callbacks, each called with `context`.
    struct Callbacks {
        var context: UnsafeMutableRawPointer
        var access: MHD_AccessHandlerCallback
        var completed: MHD_RequestCompletedCallback? = nil
        var notify: MHD_NotifyConnectionCallback? = nil
        var accept: MHD_AcceptPolicyCallback? = nil
    }

    /// What the daemon serves, for its errors ("metrics"), or "" for the public port.
    private let purpose: String
    private let running: Mutex<DaemonHandle?> = Mutex(nil)
    /// The listening socket once quiesced: closed only after MHD_stop_daemon (its manual).
    private let quiesced: Mutex<Int32?> = Mutex(nil)
    private let boundPort = Atomic<UInt16>(0)
    /// A simple listener's answer (method, path); the request's body is read and dropped.
    fileprivate let answer: (@Sendable (_ method: String, _ path: String) -> Response)?

    /// A daemon whose callbacks are given to `start`.
    init(purpose: String = "") {
        self.purpose = purpose
        self.answer = nil
    }

    /// A daemon that answers each request with `answer(method, path)` once its body is read.
    init(purpose: String, answer: @escaping @Sendable (_ method: String, _ path: String) -> Response) {
        self.purpose = purpose
        self.answer = answer
    }

    /// The port actually bound (port 0 asks the kernel to choose).
    var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Starts listening on `host`:`port`. `live`: connections may be suspended (long-polls)
    /// and the event streams' sockets are handed off after their headers, which needs
    /// MHD_USE_TURBO and a libmicrohttpd whose behaviour was verified (LibraryVersion), so
    /// another `libraryVersion` refuses to start. `callbacks` nil: the `answer` given at init.
    func start(
        host: String, port: UInt16, limits: Limits, live: Bool = false, callbacks: Callbacks? = nil,
        libraryVersion: String = LibraryVersion.installed
    ) throws(ServerError) {
        if live { try LibraryVersion.check(libraryVersion) }
        let address = try resolve(host, port)
        var flags = UInt32(MHD_USE_ITC.rawValue) | UInt32(MHD_USE_ERROR_LOG.rawValue)
        if limits.threads == nil {
            flags |= UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
        } else {
            flags |= UInt32(MHD_USE_EPOLL_INTERNAL_THREAD.rawValue)
        }
        if live {
            flags |= UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
            // TURBO: among its effects, libmicrohttpd closes a connection's descriptor without
            // shutdown() first, which lets an SSE stream's socket outlive its libmicrohttpd
            // connection on the descriptor a writer holds (MHD/EventsEndpoint.swift).
            flags |= UInt32(MHD_USE_TURBO.rawValue)
        }
        if address.family == AF_INET6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let handlers =
            callbacks
            ?? Callbacks(context: Unmanaged.passUnretained(self).toOpaque(), access: answerHandler)
        var storage = address.storage
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { sockaddrPointer in
            var options: [CVarArg] = [
                MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(limits.idleTimeout),
                MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(limits.connectionLimit),
                MHD_OPTION.SOCK_ADDR.rawValue, OpaquePointer(sockaddrPointer),
            ]
            if let threads = limits.threads { options += [MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(threads)] }
            if let perIP = limits.perIPConnectionLimit {
                options += [MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(perIP)]
            }
            if let memory = limits.connectionMemory {
                options += [
                    MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Int(memory),
                    MHD_OPTION.CONNECTION_MEMORY_INCREMENT.rawValue, Int(1024),
                ]
            }
            if let backlog = limits.listenBacklog { options += [MHD_OPTION.LISTEN_BACKLOG_SIZE.rawValue, UInt32(backlog)] }
            let context = OpaquePointer(handlers.context)
            if let notify = handlers.notify {
                options += [MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(notify, to: OpaquePointer.self), context]
            }
            if let completed = handlers.completed {
                options += [MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completed, to: OpaquePointer.self), context]
            }
            options.append(MHD_OPTION.END.rawValue)
            return withVaList(options) { arguments in
                MHD_start_daemon_va(
                    flags, port, handlers.accept, handlers.accept == nil ? nil : handlers.context, handlers.access,
                    handlers.context, arguments)
            }
        }
        guard let started else {
            let what = purpose.isEmpty ? "" : " for \(purpose)"
            throw ServerError(description: "could not listen\(what) on \(host):\(port)")
        }
        running.withLock { $0 = DaemonHandle(pointer: started) }
        boundPort.store(focus_daemon_port(started), ordering: .releasing)
    }

    /// Serves a socket accepted elsewhere (Server/ProxyListener.swift) as if libmicrohttpd had
    /// accepted it from `address`: its connection limits, the accept policy, NOTIFY_CONNECTION
    /// and the connection's client address all see `address`. libmicrohttpd owns the socket from
    /// here and closes it if it refuses it (false); so is it closed when the daemon is stopped.
    /// The daemon's lock is held throughout, so a stop never frees the daemon under this call.
    /// MHD_add_connection on a thread pool queues the connection on a worker and wakes it
    /// through its inter-thread channel (MHD_USE_ITC, set in `start`).
    @discardableResult
    func add(socket: Int32, address: sockaddr_storage, length: socklen_t) -> Bool {
        running.withLock { handle in
            guard let daemon = handle?.pointer else {
                close(socket)
                return false
            }
            var address = address
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, socket, $0, length) }
            } == MHD_Result.YES
        }
    }

    /// No new connection from now on; connections already open go on. Only the first call
    /// (of this or `stop`) closes it.
    func closeListener() {
        running.withLock { handle in
            guard let daemon = handle?.pointer else { return }
            quiesced.withLock { quiesced in
                guard quiesced == nil else { return }
                let listener = MHD_quiesce_daemon(daemon)
                // Quiescing stops accept(), but the kernel would still queue new connections on
                // the socket, where they would hang: shutting it down refuses them at once.
                if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
                quiesced = listener
            }
        }
    }

    /// Graceful stop: no new connections, then `drain` (answer what waits, let requests in
    /// flight finish), then libmicrohttpd stops, closing every connection. No connection may be
    /// suspended by then: libmicrohttpd aborts the process if one is. Only the first call stops it.
    func stop(drain: () -> Void = {}) {
        closeListener()
        let handle: DaemonHandle? = running.withLock { value in
            let current = value
            value = nil
            return current
        }
        guard let daemon = handle?.pointer else { return }
        drain()
        MHD_stop_daemon(daemon)
        if let listener = quiesced.withLock({ $0 }), listener >= 0 { close(listener) }
    }
}

/// The running daemon. libmicrohttpd's handle is safe to use from any thread for start/stop,
/// and the Mutex around it makes sure only one caller stops it.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A simple daemon's requests: any body is read and dropped, and the answer waits for the end
/// of the request.
private let answerHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, state in
    guard let cls, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    if state.pointee == nil {
        state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return MHD_Result.YES
    }
    if uploadSize.pointee > 0 {
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    let daemon = Unmanaged<Daemon>.fromOpaque(cls).takeUnretainedValue()
    guard let answer = daemon.answer else { return MHD_Result.NO }
    return send(connection, answer(String(cString: method), String(cString: url)))
}

/// A socket address for HOST and PORT (numeric or a name like localhost).
func resolve(_ host: String, _ port: UInt16) throws(ServerError) -> (storage: sockaddr_storage, family: Int32) {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_PASSIVE
    var result: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result,
        let address = first.pointee.ai_addr
    else {
        throw ServerError(description: "HOST '\(host)' is not an address this machine can listen on")
    }
    defer { freeaddrinfo(result) }
    var storage = sockaddr_storage()
    withUnsafeMutableBytes(of: &storage) { target in
        target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
    }
    return (storage, first.pointee.ai_family)
}

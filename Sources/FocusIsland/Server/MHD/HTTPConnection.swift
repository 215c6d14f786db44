// HTTPConnection: a client's libmicrohttpd connection as code outside Server/MHD/ holds it
// (Live/EventStreams.swift: a waiting long-poll). It can be suspended and resumed, and tells
// its socket; libmicrohttpd's own pointer stays inside this folder.
import CMicroHTTPD

struct HTTPConnection: @unchecked Sendable {
    fileprivate let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The connection's socket, or -1.
    var socket: Int32 { focus_connection_fd(pointer) }

    /// Stops calling the access handler until `resume` (only from libmicrohttpd's callbacks,
    /// with MHD_ALLOW_SUSPEND_RESUME: Daemon.start's `live`).
    func suspend() { MHD_suspend_connection(pointer) }

    /// Calls the access handler again; only for a suspended connection (undefined otherwise).
    func resume() { MHD_resume_connection(pointer) }
}

// PushHTTP: one libcurl easy handle (Debian's libcurl, HTTP/2 through nghttp2) kept for a
// push service (and used by social sign-in for key sets and Apple's endpoints), so its TLS and HTTP/2 connection is reused from one push to the next, as APNs
// asks. Not thread-safe: each sender thread owns its own.
import CCurl

struct PushHTTPResponse: Sendable {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]
    let http2: Bool
    var text: String { String(decoding: body, as: UTF8.self) }
    /// Retry-After in seconds (the delay form; an HTTP date counts as absent).
    var retryAfter: Int? { headers["retry-after"].flatMap { Int($0.trimming(" \t\r\n")) } }
}

final class PushHTTP {
    private let handle: UnsafeMutableRawPointer
    private let caFile: String?

    /// `caFile`: a PEM bundle trusted instead of the system's (PUSH_CA_FILE, for a loopback
    /// peer's self-signed certificate).
    init(caFile: String?) throws(PushError) {
        guard let handle = curl_easy_init() else { throw PushError("curl_easy_init failed") }
        self.handle = handle
        self.caFile = caFile
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends one request and waits for the whole answer (at most `timeout` seconds). A transport
    /// failure (no connection, TLS, timeout) throws.
    func send(
        method: String, url: String, headers: [(String, String)], body: [UInt8], timeout: Int = 15
    ) throws(PushError) -> PushHTTPResponse {
        final class Sink {
            var body: [UInt8] = []
            var headers: [String: String] = [:]
        }
        let sink = Sink()
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
        list = curl_slist_append(list, "Expect:")
        defer { curl_slist_free_all(list) }

        curl_easy_reset(handle)
        _ = focus_curl_set_string(handle, CURLOPT_URL, url)
        _ = focus_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        // HTTP/2 over TLS through ALPN; a peer that only speaks HTTP/1.1 is answered in it, and
        // `PushHTTPResponse.http2` says which one was used (APNs requires HTTP/2).
        _ = focus_curl_set_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = focus_curl_set_long(handle, CURLOPT_TIMEOUT, timeout)
        _ = focus_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, 5)
        _ = focus_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = focus_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "https")
        if let caFile { _ = focus_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
        _ = focus_curl_set_slist(handle, CURLOPT_HTTPHEADER, list)
        let unmanaged = Unmanaged.passUnretained(sink).toOpaque()
        _ = focus_curl_set_write(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        _ = focus_curl_set_pointer(handle, CURLOPT_WRITEDATA, unmanaged)
        _ = focus_curl_set_write(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                sink.headers[name] = String(line[line.index(after: colon)...]).trimming(" \t\r\n")
            }
            return size * count
        }
        _ = focus_curl_set_pointer(handle, CURLOPT_HEADERDATA, unmanaged)

        let payload = body.isEmpty ? [0] : body
        let code: CURLcode = payload.withUnsafeBufferPointer { buffer in
            // A GET (a key set, Social/KeySet.swift) sends no body at all.
            if method == "GET" {
                _ = focus_curl_set_long(handle, CURLOPT_HTTPGET, 1)
                return curl_easy_perform(handle)
            }
            _ = focus_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
            _ = focus_curl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            throw PushError("\(url): \(String(cString: curl_easy_strerror(code)))")
        }
        return PushHTTPResponse(
            status: focus_curl_status(handle), headers: sink.headers, body: sink.body,
            http2: focus_curl_http_version(handle) == Int(CURL_HTTP_VERSION_2_0))
    }
}

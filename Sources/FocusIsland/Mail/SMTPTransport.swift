// SMTPTransport: one message to one recipient over libcurl's SMTP (CCurl): STARTTLS (or TLS
// from the first byte, or plain for a loopback test server), AUTH when a user is configured.
// One easy handle per transport, so libcurl keeps the connection open between the mails of a
// batch. Options are set through CCurl's typed wrappers (options.h), as the push sender's are.
import CCurl
import Foundation
import Glibc

/// How a send ended: `code` is the SMTP server's last reply code (0 when none came).
public enum SMTPOutcome: Equatable, Sendable {
    case accepted
    /// The server refused (5xx): never retried.
    case refused(code: Int, error: String)
    /// A 4xx reply, or no reply at all (connection, TLS, timeout): worth trying later.
    /// `connection` is true when the server could not be talked to at all (nothing was refused).
    case deferred(code: Int, error: String, connection: Bool)
}

public struct SMTPError: Error, CustomStringConvertible {
    public let description: String
}

/// Not thread-safe: one sender thread owns it.
public final class SMTPTransport {
    private let settings: MailSettings
    private var handle: UnsafeMutableRawPointer?

    public init(settings: MailSettings) throws(SMTPError) {
        // curl_easy_init initialises libcurl on first use when curl_global_init was not called.
        guard let handle = curl_easy_init() else { throw SMTPError(description: "libcurl: curl_easy_init failed") }
        self.settings = settings
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends `message` (the whole RFC 5322 text, CRLF lines) from the configured sender to `recipient`.
    public func send(_ message: [UInt8], to recipient: String) -> SMTPOutcome {
        guard let handle else { return .deferred(code: 0, error: "no libcurl handle", connection: true) }
        curl_easy_reset(handle)  // keeps the open connection, forgets the last mail's options
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        // libcurl reads the message with fread from READDATA when no read function is set.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(message.count, 1), alignment: 1)
        defer { buffer.deallocate() }
        message.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let file = fmemopen(buffer, message.count, "r")
        defer { if let file { fclose(file) } }
        guard let file, !message.isEmpty else { return .deferred(code: 0, error: "fmemopen failed", connection: true) }
        var recipients: UnsafeMutablePointer<curl_slist>? = nil
        recipients = curl_slist_append(recipients, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }

        let scheme = settings.tls == .implicit ? "smtps" : "smtp"
        let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        let result = withStrings(
            [
                "\(scheme)://\(host):\(settings.port)", "<\(settings.fromAddress)>", settings.user,
                settings.password, settings.caFile,
            ]
        ) { strings -> CURLcode in
            var code = focus_curl_set_string(handle, CURLOPT_URL, strings[0])
            func set(_ option: CURLoption, _ value: Int) { if code == CURLE_OK { code = focus_curl_set_long(handle, option, value) } }
            func set(_ option: CURLoption, _ value: UnsafeRawPointer?) {
                if code == CURLE_OK { code = focus_curl_set_pointer(handle, option, UnsafeMutableRawPointer(mutating: value)) }
            }
            set(CURLOPT_MAIL_FROM, strings[1])
            set(CURLOPT_MAIL_RCPT, UnsafeRawPointer(recipients))
            if let user = strings[2] {
                set(CURLOPT_USERNAME, user)
                set(CURLOPT_PASSWORD, strings[3])
            }
            if let caFile = strings[4] { set(CURLOPT_CAINFO, caFile) }
            set(CURLOPT_USE_SSL, Int(settings.tls == .none ? CURLUSESSL_NONE.rawValue : CURLUSESSL_ALL.rawValue))
            set(CURLOPT_UPLOAD, 1)
            set(CURLOPT_READDATA, UnsafeRawPointer(file))
            set(CURLOPT_NOSIGNAL, 1)
            set(CURLOPT_CONNECTTIMEOUT, settings.timeout)
            set(CURLOPT_TIMEOUT, settings.timeout)
            set(CURLOPT_ERRORBUFFER, UnsafeRawPointer(errorBuffer))
            guard code == CURLE_OK else { return code }
            return curl_easy_perform(handle)
        }
        if result == CURLE_OK { return .accepted }
        let reply = focus_curl_status(handle)
        let detail = String(
            decoding: UnsafeBufferPointer(start: errorBuffer, count: strlen(errorBuffer)).map { UInt8(bitPattern: $0) },
            as: UTF8.self)
        let library = String(validatingCString: curl_easy_strerror(result)) ?? "libcurl error \(result.rawValue)"
        let error = (reply > 0 ? "\(reply): " : "") + (detail.isEmpty ? library : detail)
        switch reply {
        case 500..<600 where result != CURLE_LOGIN_DENIED:
            return .refused(code: reply, error: error)
        default:
            let connection =
                reply == 0 || result == CURLE_LOGIN_DENIED || result == CURLE_COULDNT_CONNECT
                || result == CURLE_USE_SSL_FAILED
            return .deferred(code: reply, error: error, connection: connection)
        }
    }
}

/// Runs `body` with C strings for `strings` (nil stays nil), alive for the call.
private func withStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}

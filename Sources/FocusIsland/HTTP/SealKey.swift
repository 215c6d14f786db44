import Foundation

// SealKey: the key that seals stored Idempotency-Key answers of requests carrying a secret
// (a password or code; api.idempotent). It lives only in the server's memory, never in the
// database, so whoever reads app.idempotency_keys can neither open a stored sign-in answer nor
// test a password guess against it. IDEMPOTENCY_SEAL_KEY (32 characters or more, the same on
// every instance) keeps such answers replayable across restarts; without it each start draws a
// random key and a retry after a restart answers 422 idempotency_key_reused.
enum SealKey {
    static let variable = "IDEMPOTENCY_SEAL_KEY"
    static let minimumLength = 32

    /// The configured key, else 32 random bytes in hex, drawn once per process.
    static let value: String = {
        if let configured = ProcessInfo.processInfo.environment[variable], configured.count >= minimumLength {
            return configured
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }()
}

// RSAPublicKey: an RSA public key made from a JWK's modulus and exponent (n, e: base64url
// big-endian integers) with OpenSSL's libcrypto (CCrypto), and the RS256 check of a JWS
// signature with it (RSASSA-PKCS1-v1_5 over SHA-256, EVP_DigestVerify).
import CCrypto
import Foundation

final class RSAPublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// nil when n or e is not base64url or OpenSSL refuses the key (also under 2048 bits: a
    /// provider's keys are 2048 or more, a shorter one is not a provider's).
    init?(n: String, e: String) {
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e),
            modulus.drop(while: { $0 == 0 }).count >= 256, !exponent.isEmpty, exponent.count <= 8
        else { return nil }
        // PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }, as d2i_PublicKey reads it.
        let der = DER.sequence(DER.integer(modulus) + DER.integer(exponent))
        let made: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PublicKey(EVP_PKEY_RSA, nil, &pointer, buffer.count)
        }
        guard let made else { return nil }
        key = made
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is this key's RS256 signature of `message`.
    func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}

/// The few DER encodings a PKCS#1 public key needs.
enum DER {
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A positive INTEGER: leading zeros dropped, one 0 added when the top bit is set.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02] + length(value.count) + value
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }
}

enum Base64URL {
    /// The bytes of base64url text (padding optional); nil when it is not base64url.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            .replacingOccurrences(of: "=", with: "")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { Array($0) }
    }
}

enum SHA256 {
    /// The SHA-256 digest of `text`'s UTF-8, as lower-case hex.
    static func hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}

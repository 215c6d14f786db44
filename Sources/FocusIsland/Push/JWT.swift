// JWT: the compact JSON Web Tokens the push services take, signed with OpenSSL's libcrypto
// (CCrypto): ES256 for APNs provider tokens (a .p8 key: a PEM PKCS#8 P-256 key), RS256 for
// FCM's OAuth2 assertion (the service account's PEM PKCS#8 RSA key).
import CCrypto
import Foundation

public struct PushError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A private key read from PEM text, signing with SHA-256.
final class SigningKey: @unchecked Sendable {
    enum Algorithm: String {
        case es256 = "ES256"
        case rs256 = "RS256"
    }
    let algorithm: Algorithm
    private let key: OpaquePointer

    init(pem: String, algorithm: Algorithm) throws(PushError) {
        let bytes = Array(pem.utf8)
        let read: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let read else { throw PushError("the key is not a PEM private key") }
        let type = EVP_PKEY_get_base_id(read)
        guard type == (algorithm == .es256 ? EVP_PKEY_EC : EVP_PKEY_RSA) else {
            EVP_PKEY_free(read)
            throw PushError("the key is not an \(algorithm == .es256 ? "EC (P-256)" : "RSA") key")
        }
        self.key = read
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// The signature of `message` as JWS wants it: RSASSA-PKCS1-v1_5, or ECDSA as r || s
    /// (32 bytes each) rather than OpenSSL's DER.
    func sign(_ message: [UInt8]) throws(PushError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw PushError("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw PushError("cannot sign") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw PushError("cannot sign") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw PushError("cannot sign") }
        signature = Array(signature.prefix(length))
        return algorithm == .es256 ? try Self.rawECDSA(der: signature) : signature
    }

    /// SEQUENCE { INTEGER r, INTEGER s } → r || s, each left-padded to 32 bytes.
    static func rawECDSA(der: [UInt8]) throws(PushError) -> [UInt8] {
        var index = 0
        func length() throws(PushError) -> Int {
            guard index < der.count else { throw PushError("bad ECDSA signature") }
            var value = Int(der[index])
            index += 1
            if value & 0x80 != 0 {
                let count = value & 0x7f
                value = 0
                for _ in 0..<count {
                    guard index < der.count else { throw PushError("bad ECDSA signature") }
                    value = value << 8 | Int(der[index])
                    index += 1
                }
            }
            return value
        }
        func integer() throws(PushError) -> [UInt8] {
            guard index < der.count, der[index] == 0x02 else { throw PushError("bad ECDSA signature") }
            index += 1
            let count = try length()
            guard index + count <= der.count else { throw PushError("bad ECDSA signature") }
            let bytes = Array(der[index..<index + count].drop { $0 == 0 })
            index += count
            guard bytes.count <= 32 else { throw PushError("bad ECDSA signature") }
            return [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
        }
        guard der.first == 0x30 else { throw PushError("bad ECDSA signature") }
        index = 1
        _ = try length()
        return try integer() + integer()
    }
}

enum JWT {
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// header.claims.signature; `header` gains alg and typ.
    static func make(header: [String: String], claims: [String: Any], key: SigningKey) throws(PushError) -> String {
        var header = header
        header["alg"] = key.algorithm.rawValue
        header["typ"] = "JWT"
        guard let headerJSON = try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]),
            let claimsJSON = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        else { throw PushError("cannot encode the JWT") }
        let signingInput = base64URL(Array(headerJSON)) + "." + base64URL(Array(claimsJSON))
        return signingInput + "." + base64URL(try key.sign(Array(signingInput.utf8)))
    }
}

internal import CCrypto
import StrataCore

/// SHA-256 and HMAC-SHA-256 for Signature Version 4, from OpenSSL's libcrypto (`EVP_Digest*`, `HMAC`): vetted code,
/// never our own, that uses the processor's SHA instructions where it has them (SHA-NI on x86-64, the ARMv8 crypto
/// extensions). On the build machine it hashes ~6× faster than libsodium's portable SHA-256, which is what the
/// signature of every uploaded byte costs. The only file that calls libcrypto; no C type leaves it.
enum S3Digest {
    /// The length of a SHA-256 digest and of an HMAC-SHA-256 tag, in bytes.
    static let length = 32

    /// The SHA-256 of the bytes `feed` hands to the function it gets, in as many pieces as it likes.
    /// - Throws: `StorageError` `.io` when libcrypto cannot hash (out of memory, no provider with SHA-256).
    static func sha256(feeding feed: ((UnsafeRawBufferPointer) -> Void) -> Void) throws(StorageError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw failure("SHA-256") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { throw failure("SHA-256") }
        var fed = true
        feed { piece in
            guard fed, let base = piece.baseAddress, !piece.isEmpty else { return }
            fed = EVP_DigestUpdate(context, base, piece.count) == 1
        }
        var digest = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        guard fed, EVP_DigestFinal_ex(context, &digest, &written) == 1, written == length else {
            throw failure("SHA-256")
        }
        return digest
    }

    /// The SHA-256 of `bytes`.
    static func sha256(_ bytes: UnsafeRawBufferPointer) throws(StorageError) -> [UInt8] {
        try sha256 { $0(bytes) }
    }

    /// The HMAC-SHA-256 of `message` under `key` (of any length).
    /// - Throws: `StorageError` `.io` when libcrypto cannot compute it.
    static func hmacSHA256(_ message: [UInt8], key: [UInt8]) throws(StorageError) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        guard key.count <= Int(Int32.max),
            HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &tag, &written) != nil,
            written == length
        else { throw failure("HMAC-SHA-256") }
        return tag
    }

    private static func failure(_ algorithm: String) -> StorageError {
        StorageError(
            .io, "OpenSSL's libcrypto could not compute a \(algorithm) to sign an S3 request", tier: .files,
            recovery: "Check that the process has memory left and that OpenSSL's configuration enables the default "
                + "provider (OPENSSL_CONF)")
    }
}

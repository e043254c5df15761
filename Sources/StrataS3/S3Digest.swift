internal import CCrypto
import StrataCore

/// SHA-256 and HMAC-SHA-256 for Signature Version 4, from OpenSSL's libcrypto (`EVP_Digest*`, `HMAC`): vetted code,
/// never our own, that uses the processor's SHA instructions where it has them (SHA-NI on x86-64, the ARMv8 crypto
/// extensions). On the build machine it hashes ~6× faster than libsodium's portable SHA-256, which is what the
/// signature of every uploaded byte costs. The only file that calls libcrypto; no C type leaves it.
///
/// An instance is one SHA-256 fed piece by piece as the bytes arrive (``add(_:)``, then ``result()``): a streamed
/// write's part buffer hashes each piece as it copies it in, while the piece is still in the processor's cache, so
/// that the part's request goes out as soon as the part is full instead of reading the whole part again first.
/// Used by one thread at a time.
final class S3Digest {
    /// The length of a SHA-256 digest and of an HMAC-SHA-256 tag, in bytes.
    static let length = 32

    /// The libcrypto context (`EVP_MD_CTX`).
    private let context: OpaquePointer
    /// False once libcrypto failed: ``result()`` then throws.
    private var healthy: Bool

    /// Starts a SHA-256 of no bytes.
    /// - Throws: `StorageError` `.io` when libcrypto cannot hash (out of memory, no provider with SHA-256).
    init() throws(StorageError) {
        guard let context = EVP_MD_CTX_new() else { throw Self.failure("SHA-256") }
        self.context = context
        healthy = EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
        guard healthy else { throw Self.failure("SHA-256") }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Hashes the next bytes.
    func add(_ piece: UnsafeRawBufferPointer) {
        guard healthy, let base = piece.baseAddress, !piece.isEmpty else { return }
        healthy = EVP_DigestUpdate(context, base, piece.count) == 1
    }

    /// Forgets what was added: the digest starts again from no bytes.
    func reset() {
        healthy = EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
    }

    /// The SHA-256 of the bytes added since the start (or the last ``reset()``); more may be added afterwards.
    /// - Throws: `StorageError` `.io` when libcrypto failed.
    func result() throws(StorageError) -> [UInt8] {
        guard healthy, let copy = EVP_MD_CTX_new() else { throw Self.failure("SHA-256") }
        defer { EVP_MD_CTX_free(copy) }
        var digest = [UInt8](repeating: 0, count: Self.length)
        var written: UInt32 = 0
        guard EVP_MD_CTX_copy_ex(copy, context) == 1, EVP_DigestFinal_ex(copy, &digest, &written) == 1,
            written == Self.length
        else { throw Self.failure("SHA-256") }
        return digest
    }

    /// The SHA-256 of the bytes `feed` hands to the function it gets, in as many pieces as it likes.
    /// - Throws: `StorageError` `.io` when libcrypto cannot hash (out of memory, no provider with SHA-256).
    static func sha256(feeding feed: ((UnsafeRawBufferPointer) -> Void) -> Void) throws(StorageError) -> [UInt8] {
        let digest = try S3Digest()
        feed(digest.add)
        return try digest.result()
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

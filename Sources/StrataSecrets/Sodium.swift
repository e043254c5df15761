internal import CSodium
import Foundation
import StrataCore
import Synchronization

/// The only file that calls libsodium: initialization, randomness, the AEAD, the password hash, keyed hashing
/// and guarded memory. No C type leaves this file; nothing is public. The wrappers the backup repository (AEAD,
/// keyed hash, password hash) and the S3 client (SHA-256, HMAC-SHA-256 for SigV4) use have `package` access.
package enum Sodium {
    package static let keyBytes = 32
    package static let nonceBytes = 24
    package static let tagBytes = 16
    package static let saltBytes = 16

    /// `sodium_init` once per process; every entry point of the module calls this first.
    static let ready: Bool = sodium_init() >= 0

    package static func ensureReady() throws {
        guard ready else { throw StorageError(.io, "libsodium failed to initialize", tier: .secrets) }
    }

    package static func random(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if count > 0 { bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) } }
        return bytes
    }

    static func randomFill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }

    /// XChaCha20-Poly1305 (IETF): returns ciphertext followed by the 16-byte tag.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, additionalData: [UInt8], nonce: [UInt8], key: UnsafeRawBufferPointer
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: plaintext.count + tagBytes)
        output.withUnsafeMutableBytes { out in
            nonce.withUnsafeBytes { seal(plaintext, additionalData: additionalData, nonce: $0, key: key, into: out) }
        }
        return output
    }

    /// XChaCha20-Poly1305 (IETF) into `output`, exactly `plaintext.count` + ``tagBytes`` bytes: the ciphertext
    /// followed by the tag, written where the caller wants them (an item file's buffer), without a copy.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, additionalData: [UInt8], nonce: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(
            nonce.count == nonceBytes && key.count == keyBytes && output.count == plaintext.count + tagBytes)
        var length: UInt64 = 0
        let empty: [UInt8] = [0]
        empty.withUnsafeBytes { placeholder in
            // An empty plaintext has no base address; libsodium reads nothing from the pointer then.
            let message = (plaintext.baseAddress ?? placeholder.baseAddress!).assumingMemoryBound(to: UInt8.self)
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, message, UInt64(plaintext.count),
                additionalData, UInt64(additionalData.count), nil,
                nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// XChaCha20-Poly1305 (IETF) in place: the plaintext, all of `buffer` but its last ``tagBytes``, becomes the
    /// ciphertext, and the tag fills those last bytes (libsodium encrypts in place when the output is the input).
    package static func seal(
        inPlace buffer: UnsafeMutableRawBufferPointer, additionalData: [UInt8], nonce: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer
    ) {
        precondition(buffer.count >= tagBytes && nonce.count == nonceBytes && key.count == keyBytes)
        let text = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            text, &length, text, UInt64(buffer.count - tagBytes), additionalData, UInt64(additionalData.count), nil,
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        )
    }

    /// How many boxes ``open(_:additionalData:nonce:key:into:)`` tried to open in this process: the tests count a
    /// warm read's work with it.
    static let boxesOpened = Atomic<Int>(0)

    /// Opens what ``seal(_:additionalData:nonce:key:)`` made, writing the plaintext into `output`.
    /// - Returns: `false` when authentication fails (wrong key, edited bytes, other associated data).
    package static func open(
        _ ciphertext: UnsafeRawBufferPointer, additionalData: [UInt8], nonce: UnsafeRawBufferPointer,
        key: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard ciphertext.count >= tagBytes, output.count >= ciphertext.count - tagBytes, nonce.count == nonceBytes,
            key.count == keyBytes
        else { return false }
        boxesOpened.add(1, ordering: .relaxed)
        var length: UInt64 = 0
        func decrypt(into target: UnsafeMutablePointer<UInt8>) -> Int32 {
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                target, &length, nil,
                ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count), additionalData,
                UInt64(additionalData.count), nonce.baseAddress!.assumingMemoryBound(to: UInt8.self),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        // An empty value has no output buffer: decrypt into a spare byte, inside its scope.
        var spare: UInt8 = 0
        let status =
            output.baseAddress.map { decrypt(into: $0.assumingMemoryBound(to: UInt8.self)) }
            ?? withUnsafeMutablePointer(to: &spare) { decrypt(into: $0) }
        return status == 0
    }

    /// Argon2id13 into `output`. Fails only when the memory cannot be had.
    package static func passwordHash(
        _ password: UnsafeRawBufferPointer, salt: [UInt8], operations: UInt64, memory: Int,
        into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard let passwordBase = password.baseAddress, password.count > 0 else { return false }
        return crypto_pwhash(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(output.count),
            passwordBase.assumingMemoryBound(to: CChar.self), UInt64(password.count), salt, operations,
            memory, crypto_pwhash_ALG_ARGON2ID13) == 0
    }

    /// Keyed BLAKE2b (`crypto_generichash`).
    package static func keyedHash(_ message: [UInt8], key: UnsafeRawBufferPointer, length: Int) -> [UInt8] {
        message.withUnsafeBytes { keyedHash($0, key: key, length: length) }
    }

    /// Keyed BLAKE2b of bytes in place (`crypto_generichash`), without copying them first.
    package static func keyedHash(_ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, length: Int)
        -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: length)
        output.withUnsafeMutableBufferPointer { out in
            _ = crypto_generichash(
                out.baseAddress!, length, message.baseAddress?.assumingMemoryBound(to: UInt8.self),
                UInt64(message.count), key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        }
        return output
    }

    /// Keyed BLAKE2b straight into guarded memory (for deriving subkeys).
    package static func keyedHash(
        _ message: [UInt8], key: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
        _ = crypto_generichash(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count, message, UInt64(message.count),
            key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
    }

    /// SHA-256 of the bytes `feed` hands over, in as many pieces as it likes (`crypto_hash_sha256`).
    package static func sha256(feeding feed: ((UnsafeRawBufferPointer) -> Void) throws -> Void) rethrows -> [UInt8] {
        _ = ready
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        try feed { piece in
            guard let base = piece.baseAddress, piece.count > 0 else { return }
            crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(piece.count))
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return digest
    }

    /// HMAC-SHA-256 of `message` under `key`, of any length (`crypto_auth_hmacsha256`).
    package static func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        _ = ready
        var state = crypto_auth_hmacsha256_state()
        crypto_auth_hmacsha256_init(&state, key, key.count)
        crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        var tag = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_final(&state, &tag)
        return tag
    }

    package static func memzero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        sodium_memzero(base, buffer.count)
    }

    package static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.count == right.count && sodium_memcmp(left, right, left.count) == 0
    }

    // Guarded memory: pages with guard pages around them, locked in RAM, inaccessible unless opened.
    static func guardedAllocate(_ count: Int) -> UnsafeMutableRawPointer? { sodium_malloc(count) }
    static func guardedFree(_ pointer: UnsafeMutableRawPointer) { sodium_free(pointer) }
    static func guardedReadOnly(_ pointer: UnsafeMutableRawPointer) { _ = sodium_mprotect_readonly(pointer) }
}

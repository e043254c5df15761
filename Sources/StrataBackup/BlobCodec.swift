import StrataCore
import StrataFiles
import StrataSecrets

/// Turns a chunk into a sealed blob and back: compressed with libdeflate when that saves at least 1/64, sealed
/// with XChaCha20-Poly1305 under a fresh random nonce.
///
/// 1/64, not less: below it the inflating on restore costs more than the bytes saved. Not more (it was 1/16):
/// 16-bit audio saves some 3% at level 3, and was stored as it is, which left a repository of a store with 40%
/// audio larger than restic's.
///
/// A sealed blob is the 24-byte nonce followed by the ciphertext and tag of: one byte of encoding (0 stored,
/// 1 raw deflate) and the payload. The associated data is `strata-backup blob v1`, the type byte and the 32 bytes
/// of the blob id, so a blob cannot pass for another, nor be moved to another place of an index unnoticed.
enum BlobCodec {
    static func additionalData(id: BlobID, type: UInt8) -> [UInt8] {
        Array("strata-backup blob v1".utf8) + [type] + id.bytes
    }

    /// Compresses (on this thread, with `compressor`) and seals `chunk`.
    static func seal(
        _ chunk: UnsafeRawBufferPointer, id: BlobID, type: UInt8, keys: RepositoryKeys,
        compressor: LibDeflate.Compressor, stages: BackupStages? = nil
    ) -> [UInt8] {
        // Room for a compressed form at most 63/64 of the input: anything larger is stored as it is.
        let room = chunk.count - chunk.count / 64
        var plaintext = [UInt8](repeating: 0, count: 1 + max(room, 0))
        let compressed = BackupStages.time(stages, .compress) {
            plaintext.withUnsafeMutableBytes { buffer in
                room > 64
                    ? compressor.compress(chunk, into: UnsafeMutableRawBufferPointer(rebasing: buffer[1...])) : nil
            }
        }
        if let compressed {
            stages?.count {
                $0.compressed += 1
                $0.compressedBytes += chunk.count
                $0.compressedOutput += compressed
            }
            plaintext[0] = 1
            plaintext.removeLast(plaintext.count - 1 - compressed)
        } else {
            stages?.count { $0.compressedInVain += 1 }
            plaintext = [0] + Array(chunk)
        }
        stages?.count { $0.sealed += 1 }
        return BackupStages.time(stages, .seal) { sealPlaintext(plaintext, id: id, type: type, keys: keys) }
    }

    private static func sealPlaintext(_ plaintext: [UInt8], id: BlobID, type: UInt8, keys: RepositoryKeys) -> [UInt8] {
        let nonce = Sodium.random(Sodium.nonceBytes)
        let sealed = plaintext.withUnsafeBytes { text in
            keys.seal.withUnsafeBytes {
                Sodium.seal(text, additionalData: additionalData(id: id, type: type), nonce: nonce, key: $0)
            }
        }
        return nonce + sealed
    }

    /// Opens, decompresses and verifies a sealed blob.
    /// - Returns: The plaintext, or the reason it is unusable.
    static func open(
        _ sealed: ArraySlice<UInt8>, id: BlobID, type: UInt8, rawLength: Int, keys: RepositoryKeys
    ) -> Result<[UInt8], Failure> {
        guard sealed.count >= Sodium.nonceBytes + Sodium.tagBytes + 1 else { return .failure(.damaged) }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - Sodium.nonceBytes - Sodium.tagBytes)
        let opened = sealed.withUnsafeBytes { all in
            keys.seal.withUnsafeBytes { key in
                plaintext.withUnsafeMutableBytes {
                    Sodium.open(
                        UnsafeRawBufferPointer(rebasing: all[Sodium.nonceBytes...]),
                        additionalData: additionalData(id: id, type: type),
                        nonce: UnsafeRawBufferPointer(rebasing: all[..<Sodium.nonceBytes]), key: key, into: $0)
                }
            }
        }
        guard opened else { return .failure(.unauthentic) }
        let content: [UInt8]
        switch plaintext[0] {
        case 0:
            content = Array(plaintext[1...])
        case 1:
            guard let decompressor = try? LibDeflate.Decompressor() else { return .failure(.damaged) }
            var output = [UInt8](repeating: 0, count: rawLength)
            let done = plaintext.withUnsafeBytes { input in
                output.withUnsafeMutableBytes {
                    decompressor.decompress(UnsafeRawBufferPointer(rebasing: input[1...]), into: $0)
                }
            }
            guard done else { return .failure(.damaged) }
            content = output
        default:
            return .failure(.damaged)
        }
        guard content.count == rawLength, content.withUnsafeBytes({ keys.id(of: $0) }) == id else {
            return .failure(.damaged)
        }
        return .success(content)
    }

    /// Why a blob could not be opened.
    enum Failure: Error {
        /// Authentication failed: edited bytes, another blob in its place, or another key.
        case unauthentic
        /// It authenticated but its content does not decompress to its id (a bug or a forged index).
        case damaged
    }
}

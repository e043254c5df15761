import StrataCore
import StrataFiles
import StrataSecrets

/// Turns a chunk into a sealed blob and back: deflated with libdeflate (level 3) when that seems worth it, sealed
/// with XChaCha20-Poly1305 under a fresh random nonce.
///
/// Whether to deflate: a chunk of 256 KiB or more is first tested on four pieces of 16 KiB spread over it, deflated
/// at level 1 (a sixteenth of the chunk, at the fastest level: some 3% of the cost of deflating it whole); unless
/// they save at least 1/16 of their bytes, the chunk is stored as it is without deflating it whole. Content that is
/// already compressed (JPEG, video, archives) saves nothing, and 16-bit audio some 2% at level 1 (3% at level 3):
/// deflating such a chunk whole cost more CPU than anything else a backup does to it, for a few percent (restic's
/// zstd stores both as they are). A chunk that passes, or a shorter one, is deflated whole and kept compressed when
/// that saves at least 1/64 of it; below that, inflating on restore costs more than the bytes saved.
///
/// A sealed blob is the 24-byte nonce followed by the ciphertext and tag of: one byte of encoding (0 stored,
/// 1 raw deflate) and the payload. The associated data is `strata-backup blob v1`, the type byte and the 32 bytes
/// of the blob id, so a blob cannot pass for another, nor be moved to another place of an index unnoticed.
enum BlobCodec {
    /// The level chunks are deflated at.
    static let level: Int32 = 3
    /// A chunk at least this long is tested on samples before it is deflated whole.
    static let sampledChunk = 256 << 10
    /// The pieces of a chunk the test deflates, and the bytes of each.
    static let samplePieces = 4
    static let samplePiece = 16 << 10

    static func additionalData(id: BlobID, type: UInt8) -> [UInt8] {
        Array("strata-backup blob v1".utf8) + [type] + id.bytes
    }

    /// Compresses when that seems worth it, and seals `chunk` (on this thread), into one new buffer: the nonce,
    /// then the ciphertext and tag, written in place with no other copy of the chunk.
    /// - Throws: ``/StrataCore/StorageError`` `.io` when libdeflate cannot allocate a compressor.
    static func seal(
        _ chunk: UnsafeRawBufferPointer, id: BlobID, type: UInt8, keys: RepositoryKeys
    ) throws -> [UInt8] {
        let worthCompressing = try isWorthCompressing(chunk)
        let compressor = worthCompressing ? try LibDeflate.Compressor(level: level) : nil
        let nonce = Sodium.random(Sodium.nonceBytes)
        let additionalData = additionalData(id: id, type: type)
        // The nonce, the encoding byte, room for the payload (the chunk as it is at most), the tag.
        let header = Sodium.nonceBytes + 1
        return [UInt8](unsafeUninitializedCapacity: header + chunk.count + Sodium.tagBytes) { buffer, count in
            let out = UnsafeMutableRawBufferPointer(buffer)
            UnsafeMutableRawBufferPointer(rebasing: out[..<Sodium.nonceBytes]).copyBytes(from: nonce)
            // Room for a compressed form at most 63/64 of the chunk: anything larger is stored as it is.
            let room = chunk.count - chunk.count / 64
            let compressed = compressor.flatMap {
                room > 64 ? $0.compress(chunk, into: .init(rebasing: out[header..<(header + room)])) : nil
            }
            let payload: Int
            if let compressed {
                out[Sodium.nonceBytes] = 1
                payload = compressed
            } else {
                out[Sodium.nonceBytes] = 0
                UnsafeMutableRawBufferPointer(rebasing: out[header..<(header + chunk.count)]).copyMemory(from: chunk)
                payload = chunk.count
            }
            keys.seal.withUnsafeBytes { key in
                Sodium.seal(
                    inPlace: .init(rebasing: out[Sodium.nonceBytes..<(header + payload + Sodium.tagBytes)]),
                    additionalData: additionalData, nonce: .init(rebasing: out[..<Sodium.nonceBytes]), key: key)
            }
            count = header + payload + Sodium.tagBytes
        }
    }

    /// Whether `chunk` seems worth deflating whole: a chunk shorter than ``sampledChunk`` always is; a longer one
    /// when ``samplePieces`` pieces of ``samplePiece`` bytes spread evenly over it, deflated at level 1, save at
    /// least 1/16 of their bytes.
    /// - Throws: ``/StrataCore/StorageError`` `.io` when libdeflate cannot allocate a compressor.
    static func isWorthCompressing(_ chunk: UnsafeRawBufferPointer) throws -> Bool {
        guard chunk.count >= sampledChunk else { return true }
        let sampler = try LibDeflate.Compressor(level: 1)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: samplePiece, alignment: 1)
        defer { output.deallocate() }
        let spacing = chunk.count / samplePieces
        var saved = 0
        for piece in 0..<samplePieces {
            // Each piece in the middle of its quarter of the chunk.
            let start = piece * spacing + (spacing - samplePiece) / 2
            let input = UnsafeRawBufferPointer(rebasing: chunk[start..<(start + samplePiece)])
            // A piece that does not fit in its own size saves nothing.
            if let produced = sampler.compress(input, into: output) { saved += samplePiece - produced }
        }
        return saved >= samplePieces * samplePiece / 16
    }

    /// Opens, decompresses and verifies a sealed blob.
    /// - Returns: The plaintext, or the reason it is unusable.
    static func open(
        _ sealed: ArraySlice<UInt8>, id: BlobID, type: UInt8, rawLength: Int, keys: RepositoryKeys
    ) -> Result<[UInt8], Failure> {
        guard sealed.count >= Sodium.nonceBytes + Sodium.tagBytes + 1, rawLength >= 0 else {
            return .failure(.damaged)
        }
        // Not zeroed first: authentication either fills every byte or fails (and the buffer is dropped).
        var opened = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: sealed.count - Sodium.nonceBytes - Sodium.tagBytes) {
            output, count in
            opened = sealed.withUnsafeBytes { all in
                keys.seal.withUnsafeBytes { key in
                    Sodium.open(
                        UnsafeRawBufferPointer(rebasing: all[Sodium.nonceBytes...]),
                        additionalData: additionalData(id: id, type: type),
                        nonce: UnsafeRawBufferPointer(rebasing: all[..<Sodium.nonceBytes]), key: key,
                        into: UnsafeMutableRawBufferPointer(output))
                }
            }
            count = opened ? output.count : 0
        }
        guard opened else { return .failure(.unauthentic) }
        let content: [UInt8]
        switch plaintext[0] {
        case 0:
            content = Array(plaintext[1...])
        case 1:
            guard let decompressor = try? LibDeflate.Decompressor() else { return .failure(.damaged) }
            // Not zeroed first: kept only when inflating filled exactly `rawLength` bytes.
            var done = false
            let output = [UInt8](unsafeUninitializedCapacity: rawLength) { output, count in
                done = plaintext.withUnsafeBytes { input in
                    decompressor.decompress(
                        UnsafeRawBufferPointer(rebasing: input[1...]), into: UnsafeMutableRawBufferPointer(output))
                }
                count = done ? rawLength : 0
            }
            guard done else { return .failure(.damaged) }
            content = output
        default:
            return .failure(.damaged)
        }
        let isItsID = content.count == rawLength && content.withUnsafeBytes({ keys.id(of: $0) }) == id
        return isItsID ? .success(content) : .failure(.damaged)
    }

    /// Why a blob could not be opened.
    enum Failure: Error {
        /// Authentication failed: edited bytes, another blob in its place, or another key.
        case unauthentic
        /// It authenticated but its content does not decompress to its id (a bug or a forged index).
        case damaged
    }
}

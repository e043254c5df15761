import Foundation
import StrataCore

extension FileEngine {
    /// Opens `key` for a reader that pulls its bytes in order, through ranged reads of the size the reader asks
    /// for: what an engine that does not keep a file open between calls (an object store) gets by default.
    ///
    /// The bytes handed out are checked against the size and CRC-32 recorded with the file: if a writer replaced
    /// it between two ranged reads, the reader throws `.conflict` rather than pass on a mix of two versions.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when there is no file, `.conflict` when it changed while
    ///   it was read, or what `body` or the engine throws.
    public func withReader<T>(_ key: String, _ body: (FileReader) throws -> T) throws -> T {
        guard let metadata = try metadata(key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        let size = Int64(metadata.size)
        var offset: Int64 = 0
        var crc: UInt32 = 0
        func changed() -> StorageError {
            StorageError(
                .conflict, "the file changed while it was read", tier: .files, key: key,
                recovery: "Read it again: another writer replaced it meanwhile")
        }
        let reader = FileReader(size: metadata.size, modificationDate: metadata.modificationDate) { buffer in
            guard offset < size, buffer.count > 0 else {
                if let recorded = metadata.checksum, recorded != crc { throw changed() }
                return 0
            }
            let end = min(size, offset + Int64(buffer.count))
            var filled = 0
            _ = try read(key, range: offset..<end, chunkSize: buffer.count) { chunk in
                let count = min(chunk.count, buffer.count - filled)
                UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + count)]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                filled += count
            }
            guard filled == Int(end - offset) else { throw changed() }
            crc = LibDeflate.crc32(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]), continuing: crc)
            offset = end
            return filled
        }
        return try body(reader)
    }
}

import StrataCore

/// Decompresses a gzip file as `gzip -d` does: every member in turn (`cat a.gz b.gz` is one valid file), each
/// checked against its own CRC-32 and length (ISIZE) by zlib.
///
/// Bytes after the last member that do not start a member (zero padding, a signature, garbage) are refused as
/// `.corrupt`, never ignored, and so is a member cut short or an empty file.
enum GzipReader {
    /// Streams the decompressed content of every member to `sink`.
    /// - Parameters:
    ///   - path: The file, for errors.
    ///   - read: Returns the next chunk of the file, or an empty one at its end.
    ///   - sink: Receives the content, piece by piece.
    /// - Returns: The number of members.
    @discardableResult
    static func decompress(
        path: String, read: () throws -> [UInt8], sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let inflater = try Zlib.Inflater(gzip: true)
        var members = 0
        var memberStarted = false
        while true {
            let chunk = try read()
            if chunk.isEmpty { break }
            var start = 0
            while start < chunk.count {
                if inflater.isFinished {
                    inflater.reset()
                }
                if !memberStarted, members > 0, !Self.startsMember(chunk[start...]) {
                    throw StorageError(
                        .corrupt, "the gzip file has \(chunk.count - start) or more bytes after its last member",
                        tier: .files, path: path,
                        recovery: "Remove what follows the compressed data (a gzip file is one or more members)")
                }
                memberStarted = true
                let consumed: Int
                do {
                    consumed = try chunk.withUnsafeBytes { bytes in
                        try inflater.feed(UnsafeRawBufferPointer(rebasing: bytes[start...]), sink)
                    }
                } catch let error as StorageError where error.code == .corrupt && error.path == nil {
                    throw StorageError(
                        .corrupt, "member \(members + 1) of the gzip file is damaged: \(error.message)", tier: .files,
                        path: path)
                }
                start += consumed
                if inflater.isFinished {
                    members += 1
                    memberStarted = false
                } else if consumed == 0 {
                    throw StorageError(
                        .corrupt, "the gzip file's data cannot be decompressed", tier: .files, path: path)
                }
            }
        }
        guard members > 0, !memberStarted else {
            throw StorageError(.corrupt, "the gzip file is truncated", tier: .files, path: path)
        }
        return members
    }

    /// Whether bytes can start a member: its magic number, or as much of it as there is.
    private static func startsMember(_ bytes: ArraySlice<UInt8>) -> Bool {
        zip(bytes.prefix(2), [0x1F, 0x8B] as [UInt8]).allSatisfy { $0 == $1 }
    }
}

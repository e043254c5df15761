public import Foundation
import StrataCore

extension ZipArchive {
    /// Streams the content of the entry `name` to `body`, a chunk at a time (at most 256 KiB of the archive is held
    /// at once, whatever the entry's size), and checks its size and CRC-32 once the last chunk is handed over.
    ///
    /// The chunks reach `body` before the check at the end: a caller that must not act on damaged data writes them
    /// somewhere temporary and keeps them only when this returns.
    /// - Parameters:
    ///   - name: The entry's name, as ``ZipEntry/name`` spells it.
    ///   - body: Gets each chunk; its memory is valid only until it returns.
    /// - Returns: The number of bytes handed to `body`.
    /// - Throws: ``/StrataCore/StorageError`` naming the archive (`path`) and entry (`key`): `.notFound` for no such
    ///   entry, `.corrupt` for data that fails its CRC-32, runs short or a deflate stream that is damaged,
    ///   `.limitExceeded` for data that expands past its declared size; or what `body` throws.
    @discardableResult
    public func read(_ name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        guard let entry = index[ExactString(name)] else {
            throw StorageError(
                .notFound, "the zip archive has no entry of this name", tier: .files, key: name, path: path,
                recovery: "List the entries with ZipArchive.entries; names are compared exactly")
        }
        var count = 0
        _ = try reader.extract(entry) { chunk in
            count += chunk.count
            try body(chunk)
        }
        return count
    }

    /// The whole content of the entry `name`, checked against its size and CRC-32 before it is returned.
    /// - Throws: What ``read(_:_:)`` throws.
    public func data(for name: String) throws -> Data {
        // Declared sizes are the archive's word: reserve no more than a little ahead of what arrives.
        var data = Data(capacity: min(self[name]?.size ?? 0, 16 << 20))
        try read(name) { data.append(contentsOf: $0) }
        return data
    }
}

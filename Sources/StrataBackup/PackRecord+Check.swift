import StrataCore
import StrataSecrets

// The checks an index file's records pass before anything reads, allocates or deletes by them.
extension PackRecord {
    /// Checks the record against what a pack can hold: a pack name, and for each blob an id, a plaintext of at
    /// most `maximumChunk` bytes, and a sealed length and offset inside the pack, past its prefix.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming the index file (`path`) and the pack or blob (`key`).
    func check(maximumChunk: Int, path: String) throws {
        guard BackupRepository.isID(name) else {
            throw StorageError(
                .corrupt, "the index names a pack that is not 64 hex digits", key: name, path: path,
                recovery: "Run `check`; restore the index file from a copy of the repository, or remove it")
        }
        let smallest = Sodium.nonceBytes + Sodium.tagBytes + 1
        let largest = maximumChunk + smallest
        for entry in blobs {
            let why: String? =
                if BlobID(hex: entry.id) == nil {
                    "a blob id that is not 64 hex digits"
                } else if !(0...maximumChunk).contains(entry.rawLength) {
                    "a plaintext of \(entry.rawLength) bytes (at most \(maximumChunk))"
                } else if !(smallest...largest).contains(entry.length) {
                    "a sealed length of \(entry.length) bytes (\(smallest) to \(largest))"
                } else if size < 0 || entry.offset < SealedFile.prefixSize || entry.offset > size - entry.length {
                    "an offset of \(entry.offset) outside the pack's \(size) bytes"
                } else { nil }
            if let why {
                throw StorageError(
                    .corrupt, "the index gives a blob of pack \(name) \(why)", key: entry.id, path: path,
                    recovery: "Run `check`; restore the index file from a copy of the repository, or remove it")
            }
        }
    }
}

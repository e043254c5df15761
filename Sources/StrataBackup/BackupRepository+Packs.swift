import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Packs read from their own headers: what no index file lists, and what rebuilding the index lists.
extension BackupRepository {
    /// The record of the pack `name` of `data/`, from its own header (checked as an index file's records are);
    /// `nil` when the entry is not a regular file (a folder, a link: not a pack this repository wrote).
    /// - Returns: The record, or the error naming the pack when its header cannot be read (damaged, sealed under
    ///   another key, from a newer Strata, truncated).
    func packRecord(fromHeaderOf name: String) -> Result<PackRecord, StorageError>? {
        let path = data.path(of: name)
        do throws(Errno) {
            guard let info = try data.status(of: name), info.st_mode & S_IFMT == S_IFREG else { return nil }
        } catch {
            return .failure(error.storageError("cannot inspect a pack", path: path))
        }
        do {
            let reader = try PackReader(name: name, in: data, keys: keys)
            let record = PackRecord(name: name, size: reader.size, blobs: try reader.header())
            try record.check(maximumChunk: configuration.maximumChunk, path: path)
            return .success(record)
        } catch let error as StorageError {
            return .failure(error)
        } catch {
            return .failure(StorageError(.io, "cannot read a pack's header: \(error)", path: path))
        }
    }
}

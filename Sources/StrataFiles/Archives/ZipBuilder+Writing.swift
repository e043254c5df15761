import Foundation
import StrataCore
import StrataSystem

extension ZipBuilder {
    /// Checks a new entry's name and starts its record at the current offset.
    func begin(
        _ name: String, method: ZipEntry.Method, modificationDate: Date, isFolder: Bool, progress: inout Progress
    ) throws -> ZipFormat.Record {
        try checkOpen(progress)
        let key = isFolder ? String(String.UnicodeScalarView(name.unicodeScalars.dropLast())) : name
        do {
            try StoragePaths.validateKey(key)
        } catch {
            throw StorageError(
                .invalidKey, "a zip entry's name is refused, as it could land outside a folder: \(error.message)",
                tier: .files, key: name, path: path, recovery: error.recovery)
        }
        guard progress.names.insert(ExactString(key)).inserted else {
            throw StorageError(
                .invalidArgument, "the archive has an entry of this name already", tier: .files, key: name, path: path,
                recovery: "Give each entry its own name")
        }
        return ZipFormat.Record(
            name: name, method: method == .deflated ? 8 : 0, crc: 0, compressedSize: 0, size: 0,
            offset: progress.count, modified: Int(modificationDate.timeIntervalSince1970.rounded(.down)))
    }

    /// Refuses a builder that was finished, or whose streamed entry failed halfway.
    func checkOpen(_ progress: Progress) throws {
        guard !progress.isFinished else {
            throw StorageError(
                .invalidArgument, "the zip archive is finished (or an entry failed halfway); nothing more can be added",
                tier: .files, path: path, recovery: "Start a new ZipBuilder")
        }
    }

    func emit(_ bytes: [UInt8], into progress: inout Progress) throws {
        try bytes.withUnsafeBytes { try emit($0, into: &progress) }
    }

    /// Appends `bytes` to the archive: to its data in memory, or written whole to the handle.
    func emit(_ bytes: UnsafeRawBufferPointer, into progress: inout Progress) throws {
        switch output {
        case .memory:
            progress.data.append(contentsOf: bytes)
        case .descriptor(let fd):
            do throws(Errno) {
                try Sys.writeAll(fd, bytes, path: path)
            } catch {
                throw error.storageError("cannot write the zip archive", tier: .files, path: path)
            }
        }
        progress.count += bytes.count
    }
}

import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An import into an engine that has no staging of its own (an object store): entries are extracted into a private
/// folder of the local temporary folder, checked whole, then written through the engine one by one.
///
/// What a reader sees: each imported file appears whole (an engine's write replaces a file or nothing), but during
/// the commit some of the archive's files may be visible and others not yet. A commit that fails puts back every
/// file it had replaced (its previous content is read into the staging folder first) and deletes the ones that
/// were new, unless another writer replaced them meanwhile (then theirs stays); if a previous file cannot be put
/// back, the staging folder is kept and the error's recovery names it.
final class EngineImport: ImportTransaction {
    /// A file the commit wrote: its key, the name of its previous content in the staging folder (if there was
    /// one), and the CRC-32 and size of what was written, so a rollback never undoes someone else's later write.
    private struct Placement {
        var key: String
        var previous: String?
        var crc: UInt32
        var size: Int
    }

    private let engine: any FileEngine
    private let chunkSize: Int
    private let temporary: DirectoryHandle
    private let name: String
    private let folder: DirectoryHandle
    private var staged: [Int: (crc: UInt32, size: Int)] = [:]
    private var placements: [Placement] = []
    private var isKept = false

    /// Creates the private staging folder (0700) in the system's temporary folder.
    init(_ engine: any FileEngine, chunkSize: Int) throws {
        self.engine = engine
        self.chunkSize = max(chunkSize, 4096)
        let path = FileManager.default.temporaryDirectory.path
        do {
            temporary = try DirectoryHandle.open(path: path)
        } catch {
            throw error.storageError("cannot open the temporary folder", tier: .files, path: path)
        }
        name = "strata-import-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        do throws(Errno) {
            try Sys.mkdirat(temporary.fd, name, 0o700, path: temporary.path(of: name))
        } catch {
            throw error.storageError("cannot create a staging folder", tier: .files, path: temporary.path(of: name))
        }
        do throws(StorageError) {
            guard let opened = try temporary.openDirectory(name, create: false) else {
                throw StorageError(.notFound, "the staging folder disappeared as it was created")
            }
            folder = opened
        } catch {
            try? temporary.removeDirectory(name)
            throw error.attributed(tier: .files, key: nil)
        }
    }

    /// A file when the engine has one at `key`; a folder when it has files under `key/`.
    func kind(of key: String) throws -> StoreNodeKind? {
        if try engine.exists(key) { return .file }
        return try engine.list(prefix: key, recursive: true).isEmpty ? nil : .folder
    }

    func stage(_ index: Int, _ body: (inout FileWriter) throws -> Void) throws {
        let file = "\(index)"
        let path = folder.path(of: file)
        let fd: FileDescriptor
        do {
            fd = try folder.openFile(file, .writeOnly, [.create, .exclusive])
        } catch {
            throw error.storageError("cannot create a staged file", tier: .files, path: path)
        }
        defer { Sys.close(fd) }
        var writer = FileWriter { bytes in
            do throws(Errno) { try Sys.writeAll(fd, bytes, path: path) } catch {
                throw error.storageError("cannot write a staged file", tier: .files, path: path)
            }
        }
        try body(&writer)
        staged[index] = (writer.crc, writer.count)
    }

    /// Writes every staged file through the engine, keeping each previous file first; on a failure, undoes the
    /// writes newest first.
    func commit(_ files: [(index: Int, key: String)], newFolders: [String]) throws -> [String] {
        do {
            for (index, key) in files {
                let previous = "previous-\(index)"
                let kept = try keepPrevious(key, as: previous) ? previous : nil
                try writeStaged("\(index)", to: key)
                let (crc, size) = staged[index] ?? (0, 0)
                placements.append(Placement(key: key, previous: kept, crc: crc, size: size))
            }
        } catch {
            let unrestored = rollBack()
            guard !unrestored.isEmpty, var failure = error as? StorageError else { throw error }
            isKept = true
            failure.recovery =
                "\(unrestored.count) replaced file(s) could not be put back; their previous content is in "
                + temporary.path(of: name) + " (named previous-N, in import order)"
            throw failure
        }
        return files.map(\.key)
    }

    func finish() {
        guard !isKept else { return }
        for entry in (try? folder.entries()) ?? [] { try? folder.unlink(entry) }
        try? temporary.removeDirectory(name)
    }

    /// Copies the engine's file at `key` into the staging folder as `file`.
    /// - Returns: Whether there was a file.
    private func keepPrevious(_ key: String, as file: String) throws -> Bool {
        let path = folder.path(of: file)
        let fd: FileDescriptor
        do {
            fd = try folder.openFile(file, .writeOnly, [.create, .truncate])
        } catch {
            throw error.storageError("cannot keep a file the import replaces", tier: .files, key: key, path: path)
        }
        defer { Sys.close(fd) }
        do {
            _ = try engine.read(key, range: nil, chunkSize: chunkSize) { bytes in
                do throws(Errno) { try Sys.writeAll(fd, bytes, path: path) } catch {
                    throw error.storageError(
                        "cannot keep a file the import replaces", tier: .files, key: key, path: path)
                }
            }
            return true
        } catch let error as StorageError where error.code == .notFound {
            try? folder.unlink(file)
            return false
        }
    }

    /// Writes the staging folder's `file` to `key` through the engine.
    private func writeStaged(_ file: String, to key: String) throws {
        let fd: FileDescriptor
        do {
            fd = try folder.openRegularFile(file).fd
        } catch {
            throw error.storageError("cannot read a staged file", tier: .files, key: key, path: folder.path(of: file))
        }
        defer { Sys.close(fd) }
        try engine.write(key) { writer in try writer.write(contentsOf: fd, chunkSize: chunkSize) }
    }

    /// Puts back what the commit replaced, newest first.
    /// - Returns: The keys whose previous file could not be put back.
    private func rollBack() -> [String] {
        var unrestored: [String] = []
        for placement in placements.reversed() {
            do {
                guard let current = try engine.metadata(placement.key),
                    current.size == placement.size, current.checksum == placement.crc
                else { continue }  // Replaced by someone else since (or gone): theirs stays.
                if let previous = placement.previous {
                    try writeStaged(previous, to: placement.key)
                } else {
                    _ = try engine.delete(placement.key)
                }
            } catch {
                if placement.previous != nil { unrestored.append(placement.key) }
            }
        }
        return unrestored
    }
}

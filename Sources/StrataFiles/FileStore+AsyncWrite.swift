public import Foundation
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileStore {
    /// Writes a file from an async sequence of chunks, replacing any file there atomically when it ends.
    ///
    /// The chunks are collected into a local staging file first (no lock held and nothing sent while awaiting),
    /// then written through the engine: in the tier folder on the POSIX engine (a dead writer's staging file is
    /// removed with its temporaries), in the system's temporary folder on any other.
    public func write<S: AsyncSequence>(to key: String, chunks: S) async throws where S.Element == Data {
        try check(key)
        let folder = try scratchFolder()
        let staging =
            AtomicFile.temporaryPrefix + "\(getpid())-stream-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd: FileDescriptor
        do {
            fd = try folder.openFile(staging, .readWrite, [.create, .exclusive])
        } catch {
            throw error.storageError(
                "cannot create a staging file", tier: .files, key: key, path: folder.path(of: staging))
        }
        defer {
            Sys.close(fd)
            try? folder.unlink(staging)
        }
        do {
            for try await chunk in chunks { try Sys.writeAll(fd, chunk, path: folder.path(of: staging)) }
        } catch let error as Errno {
            throw error.storageError(
                "cannot write the staging file", tier: .files, key: key, path: folder.path(of: staging))
        }
        var buffer = [UInt8](repeating: 0, count: configuration.chunkSize)
        var offset: Int64 = 0
        try write(to: key) { writer in
            while true {
                let count = try buffer.withUnsafeMutableBytes { bytes throws(StorageError) in
                    do throws(Errno) { return try Sys.pread(fd, bytes, at: offset) } catch {
                        throw error.storageError("cannot read the staging file", tier: .files, key: key)
                    }
                }
                if count == 0 { return }
                try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                offset += Int64(count)
            }
        }
    }

    /// Where local staging files go: the engine's scratch folder, or the system's temporary folder.
    func scratchFolder() throws -> DirectoryHandle {
        if let engine = engine as? any LocalFastPaths { return try engine.scratchFolder() }
        let path = FileManager.default.temporaryDirectory.path
        do {
            return try DirectoryHandle.open(path: path)
        } catch {
            throw error.storageError("cannot open the temporary folder", tier: .files, path: path)
        }
    }
}

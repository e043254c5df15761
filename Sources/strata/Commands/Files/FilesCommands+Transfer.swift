import Foundation
import Strata
import StrataCore
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Copying a file into or out of the store so that Ctrl-C (or SIGTERM) stops it cleanly: the copy polls
// `Interruption.isRequested` between chunks, and its atomic write removes its temporary as the stop unwinds.
extension FilesCommands {
    /// Copies what `handle` reads (a file, a pipe, a FIFO) into the store under `key`, replacing any file there
    /// only once the input ends. A read that waits for input (a pipe) wakes every 100 ms to notice a stop.
    /// - Throws: ``StorageError``, `cancelled` when a signal stopped the copy (nothing is changed then).
    static func copyIn(_ handle: FileHandle, to key: String, files: FileStore) throws {
        let fd = FileDescriptor(rawValue: handle.fileDescriptor)
        let source = "the input of '\(key)'"
        var buffer = [UInt8](repeating: 0, count: files.configuration.chunkSize)
        try files.write(to: key) { writer in
            while true {
                try stopIfInterrupted()
                let ready: Int16
                do throws(Errno) {
                    ready = try Sys.poll(fd, events: Int16(POLLIN), until: .now + .milliseconds(100))
                } catch {
                    throw error.storageError("cannot wait for \(source)", tier: .files, key: key)
                }
                if ready == 0 { continue }
                let count: Int
                do throws(Errno) {
                    count = try Sys.read(fd, into: &buffer)
                } catch {
                    throw error.storageError("cannot read \(source)", tier: .files, key: key)
                }
                if count == 0 { return }
                try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
    }

    /// Copies the file `key` to `output` (0600: store content stays private), replacing it atomically once
    /// complete.
    /// - Throws: ``StorageError``, `cancelled` when a signal stopped the copy (`output` is unchanged).
    static func copyOut(_ key: String, to output: String, files: FileStore) throws {
        try AtomicFile.write(to: output) { writer in
            try files.read(key) { chunk in
                try stopIfInterrupted()
                try writer.write(chunk)
            }
        }
    }

    /// Removes what killed runs left beside `output` (see `AtomicFile.removeStaleTemporaries(in:)` for the rule).
    static func removeStaleTemporaries(besides output: String) {
        AtomicFile.removeStaleTemporaries(in: LocalPath(output).parent.string)
    }

    private static func stopIfInterrupted() throws {
        if Interruption.isRequested { throw StorageError(.cancelled, "stopped by a signal", tier: .files) }
    }
}

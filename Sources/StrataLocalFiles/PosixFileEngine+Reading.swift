public import Foundation
import StrataCore
public import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Reads: each under the key's shared lock, from a descriptor opened relative to the key's folder.
extension PosixFileEngine {
    /// The whole content of a file, or `nil` when there is none, read under its shared lock.
    public func read(_ key: String) throws -> Data? {
        guard let (folder, name) = try parent(of: key) else { return nil }
        return try withLock(key, .shared) {
            do {
                return try AtomicFile.read(in: folder, name: name, followGrowth: false)
            } catch let error as StorageError {
                throw error.attributed(tier: .files, key: key)
            }
        }
    }

    /// Streams a file, or `range` of it, to `body` through one buffer of `chunkSize` bytes reused for every
    /// chunk, under the shared lock.
    public func read(
        _ key: String, range: Range<Int64>?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 4096)
        defer { buffer.deallocate() }
        return try withOpenFile(key) { fd, path in
            var offset = range?.lowerBound ?? 0
            let end = range?.upperBound ?? .max
            if range == nil { Sys.adviseSequential(fd) }
            var total = 0
            while offset < end {
                let wanted = Int(min(Int64(buffer.count), end - offset))
                let count: Int
                do throws(Errno) {
                    count = try Sys.pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
                } catch {
                    throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
                }
                if count == 0 { break }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                offset += Int64(count)
                total += count
            }
            return total
        }
    }

    /// Streams a file to `body` in chunks of `chunkSize` under its shared lock, each read straight into the memory
    /// of the `Data` handed out (no copy; `body` may keep it).
    /// - Returns: The number of bytes read.
    package func read(_ key: String, chunkSize: Int, chunks body: (Data) throws -> Void) throws -> Int {
        let chunkSize = max(chunkSize, 1)
        return try withOpenFile(key) { fd, path in
            Sys.adviseSequential(fd)
            var total = 0
            while true {
                guard let memory = malloc(chunkSize) else {
                    throw StorageError(.io, "cannot allocate a read buffer", tier: .files, key: key, path: path)
                }
                let count: Int
                do throws(Errno) {
                    count = try Sys.read(fd, UnsafeMutableRawBufferPointer(start: memory, count: chunkSize))
                } catch {
                    free(memory)
                    throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
                }
                if count == 0 {
                    free(memory)
                    return total
                }
                try body(Data(bytesNoCopy: memory, count: count, deallocator: .free))
                total += count
            }
        }
    }

    /// A reader over the file's descriptor, held open under the shared lock while `body` runs: the exports read
    /// at the speed of the disk, and no writer replaces the file meanwhile.
    public func withReader<T>(_ key: String, _ body: (FileReader) throws -> T) throws -> T {
        try withOpenFile(key) { fd, path in
            Sys.adviseSequential(fd)
            let info: stat
            do throws(Errno) { info = try Sys.fstat(fd) } catch {
                throw error.storageError("cannot inspect the file", tier: .files, key: key, path: path)
            }
            let reader = FileReader(size: Int(info.st_size), modificationDate: Self.date(info, modification: true)) {
                buffer in
                do throws(Errno) {
                    return try Sys.read(fd, buffer)
                } catch {
                    throw error.storageError("cannot read the file", tier: .files, key: key, path: path)
                }
            }
            return try body(reader)
        }
    }

    /// Opens a key's file under its shared lock and calls `body` with the descriptor and the file's path.
    func withOpenFile<T>(_ key: String, _ body: (FileDescriptor, String) throws -> T) throws -> T {
        try withLock(key, .shared) {
            let (fd, path) = try openForReading(key)
            defer { Sys.close(fd) }
            return try body(fd, path)
        }
    }

    /// Opens a key's file for reading, from the root down by descriptor.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound`, `.symbolicLink`, or an I/O error.
    func openForReading(_ key: String) throws -> (fd: FileDescriptor, path: String) {
        guard let (folder, name) = try parent(of: key) else {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key)
        }
        return (try open(name, in: folder, key: key), folder.path(of: name))
    }

    func open(_ name: String, in folder: DirectoryHandle, key: String) throws -> FileDescriptor {
        let path = folder.path(of: name)
        do {
            // A FIFO, socket, device or folder at the key's name is refused, never waited on.
            return try folder.openRegularFile(name).fd
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no file with this key", tier: .files, key: key, path: path)
        } catch {
            throw error.storageError("cannot open the file", tier: .files, key: key, path: path)
        }
    }

    static func date(_ info: stat, modification: Bool) -> Date {
        #if canImport(Darwin)
            let time = modification ? info.st_mtimespec : info.st_atimespec
        #else
            let time = modification ? info.st_mtim : info.st_atim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}

public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file replacement that a crash cannot tear: write a temporary file in the same folder, `fsync` it,
/// `rename(2)` it over the target, `fsync` the folder.
///
/// A reader (or a process started after a crash) sees the old content or the new content, never a mix or an
/// empty file. `FileManager.replaceItemAt` is not used: it is broken on Linux.
///
/// ```swift
/// try AtomicFile.write(Data("hello".utf8), to: "/tmp/app/greeting.txt")
/// let data = try AtomicFile.read("/tmp/app/greeting.txt")   // nil when absent
/// ```
public enum AtomicFile {
    /// How far a write goes before it returns.
    public enum Durability: Sendable, Hashable {
        /// The content and the rename are on disk before the call returns (`fsync` of the file and folder).
        case durable
        /// Atomic but not forced to disk: after a power loss the file may hold the old content.
        /// Still never torn, even if the process is killed.
        case atomicOnly
    }

    /// The prefix of temporary files; ``removeStaleTemporaries(in:)`` recognizes them by it.
    public static let temporaryPrefix = StoragePaths.reservedPrefix + "tmp-"

    /// Replaces the file at `path` with `data`.
    /// - Parameters:
    ///   - data: The new content.
    ///   - path: The target; its folder must exist. A symbolic link at `path` is replaced, never followed.
    ///   - permissions: The new file's mode. The default is 0600.
    ///   - durability: Whether to force the data to disk. The default is ``Durability/durable``.
    /// - Throws: ``StorageError`` when any step fails; the previous file is then untouched and no temporary is
    ///   left behind.
    public static func write(
        _ data: Data, to path: String, permissions: Int = 0o600, durability: Durability = .durable
    ) throws {
        try write(to: path, permissions: permissions, durability: durability) { writer in
            try writer.write(data)
        }
    }

    /// Replaces the file at `path` with what `body` writes, streamed through a ``Writer``.
    ///
    /// Memory stays flat whatever the size. If `body` throws, the target is untouched.
    /// - Throws: ``StorageError`` from any step, or what `body` throws.
    public static func write(
        to path: String, permissions: Int = 0o600, durability: Durability = .durable,
        _ body: (inout Writer) throws -> Void
    ) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/" + temporaryPrefix + "\(getpid())-" + randomSuffix()
        let fd: Int32
        do {
            fd = try Sys.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode_t(permissions))
        } catch {
            throw error.storageError("cannot create a temporary file beside the target", path: path)
        }
        var writer = Writer(fd: fd, path: path)
        var renamed = false
        defer {
            if writer.fd >= 0 { Sys.close(writer.fd) }
            if !renamed { try? Sys.unlink(temporary) }
        }
        try body(&writer)
        do {
            // The mode given to open(2) is filtered by the umask; set it exactly.
            try Sys.fchmod(fd, mode_t(permissions))
            if durability == .durable { try Sys.fsync(fd, path: path) }
        } catch {
            throw error.storageError("cannot flush the new content to disk", path: path)
        }
        Sys.close(fd)
        writer.fd = -1
        do {
            try Sys.rename(temporary, path)
        } catch {
            throw error.storageError("cannot move the new content into place", path: path)
        }
        renamed = true
        if durability == .durable { try syncDirectory(folder) }
    }

    /// Streams bytes into the temporary file of an atomic write.
    public struct Writer: ~Copyable {
        fileprivate var fd: Int32
        /// The target's path, for error messages.
        public let path: String
        /// How many bytes were written so far.
        public private(set) var count: Int = 0

        fileprivate init(fd: Int32, path: String) {
            self.fd = fd
            self.path = path
        }

        /// Appends `data`.
        /// - Throws: ``StorageError`` (`.noSpace` when the disk is full).
        public mutating func write(_ data: Data) throws {
            try data.withUnsafeBytes { try write($0) }
        }

        /// Sets an extended attribute on the new file; it is renamed into place with the content, atomically.
        /// - Returns: `false` when the file system does not support extended attributes.
        /// - Throws: ``StorageError`` for other failures.
        @discardableResult
        public func setExtendedAttribute(_ name: String, _ value: [UInt8]) throws -> Bool {
            do {
                try Sys.setAttribute(fd, name, value)
                return true
            } catch  where error.code == ENOTSUP || error.code == EOPNOTSUPP {
                return false
            } catch {
                throw error.storageError("cannot set the extended attribute \(name)", path: path)
            }
        }

        /// Overwrites bytes already written, at `offset` (to patch a header once the data after it is known).
        /// - Throws: ``StorageError``.
        public func write(_ bytes: [UInt8], at offset: Int) throws {
            guard offset >= 0, offset + bytes.count <= count else {
                throw StorageError(.invalidArgument, "a patch must fall inside what was written", path: path)
            }
            var done = 0
            while done < bytes.count {
                let written = bytes.withUnsafeBytes { buffer in
                    pwrite(fd, buffer.baseAddress! + done, bytes.count - done, off_t(offset + done))
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Errno.current.storageError("cannot patch the new content", path: path)
                }
                done += written
            }
        }

        /// Appends the bytes of `buffer`.
        /// - Throws: ``StorageError`` (`.noSpace` when the disk is full).
        public mutating func write(_ buffer: UnsafeRawBufferPointer) throws {
            do {
                try Sys.writeAll(fd, buffer, path: path)
            } catch {
                throw error.storageError("cannot write the new content", path: path)
            }
            count += buffer.count
        }
    }

    /// Reads a whole file, never following a symbolic link.
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumSize: Refuse files larger than this many bytes (a guard against hostile input). The default
    ///     is no limit.
    ///   - followGrowth: Whether to keep reading past the size `fstat` reported, for files another process may
    ///     append to. Files that are only ever replaced (by this type) never grow: pass `false` to save a read.
    ///     The default is `true`.
    /// - Returns: The content, or `nil` when there is no file at `path`.
    /// - Throws: ``StorageError``: `.symbolicLink`, `.tooLarge`, or an I/O error.
    public static func read(_ path: String, maximumSize: Int? = nil, followGrowth: Bool = true) throws -> Data? {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
        } catch let error where error.code == ENOENT {
            return nil
        } catch {
            throw error.storageError("cannot open the file", path: path)
        }
        defer { Sys.close(fd) }
        return try readAll(fd, path: path, maximumSize: maximumSize, followGrowth: followGrowth)
    }

    /// Reads from `fd` to the end of the file.
    package static func readAll(_ fd: Int32, path: String, maximumSize: Int? = nil, followGrowth: Bool = true) throws
        -> Data
    {
        var size: Int
        do {
            size = Int(try Sys.fstat(fd).st_size)
        } catch {
            throw error.storageError("cannot inspect the file", path: path)
        }
        if let maximumSize, size > maximumSize {
            throw StorageError(
                .tooLarge, "the file is \(size) bytes, over the limit of \(maximumSize) for this read", path: path)
        }
        // Read into a buffer of the size fstat reported, then on to the end of the file: it may have grown
        // since (an append by another process).
        var data = Data(count: max(size, 0))
        var filled = 0
        var failure: Errno?
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            while filled < buffer.count {
                do throws(Errno) {
                    let got = try Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                    if got == 0 { break }
                    filled += got
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure.storageError("cannot read the file", path: path) }
        if filled < data.count { data.count = filled }
        guard followGrowth, filled == size else { return data }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while filled == size {
            var got = 0
            chunk.withUnsafeMutableBytes { buffer in
                do throws(Errno) { got = try Sys.read(fd, buffer) } catch { failure = error }
            }
            if let failure { throw failure.storageError("cannot read the file", path: path) }
            if got == 0 { break }
            if let maximumSize, filled + got > maximumSize {
                throw StorageError(
                    .tooLarge, "the file grew over the limit of \(maximumSize) bytes while being read", path: path)
            }
            data.append(contentsOf: chunk[0..<got])
            filled += got
            size += got
        }
        return data
    }

    /// `fsync`s a folder so that a rename inside it is durable.
    /// - Throws: ``StorageError`` when the folder cannot be opened or synced.
    public static func syncDirectory(_ path: String) throws {
        do {
            let fd = try Sys.open(path, O_RDONLY | O_DIRECTORY)
            defer { Sys.close(fd) }
            try Sys.fsync(fd, path: path)
        } catch {
            throw error.storageError("cannot flush the folder to disk", path: path)
        }
    }

    /// Deletes temporary files left in `folder` by processes that died mid-write (their process id is gone).
    /// - Returns: How many were removed.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(temporaryPrefix) {
            let rest = name.dropFirst(temporaryPrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }) else { continue }
            if pid == getpid() { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                if (try? Sys.unlink(folder + "/" + name)) != nil { removed += 1 }
            }
        }
        return removed
    }

    private static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}

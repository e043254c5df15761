public import Foundation
package import StrataSystem
import Synchronization

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
    /// How far a write goes before it returns: Strata's one ``StrataCore/Durability``. A write with
    /// ``StrataCore/Durability/coalesced(_:)`` is made at once and durable (a single file write has nothing to
    /// coalesce).
    public typealias Durability = StrataCore.Durability

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
    /// Memory stays flat whatever the size. If `body` throws, the target is untouched. The target's folder is
    /// opened once (following links in `path`, which the caller chose) and every later step is relative to
    /// it: see `write(in:name:permissions:durability:retiringReplaced:_:)`.
    /// - Throws: ``StorageError`` from any step, or what `body` throws.
    public static func write(
        to path: String, permissions: Int = 0o600, durability: Durability = .durable,
        _ body: (inout Writer) throws -> Void
    ) throws {
        let (folder, name) = try openFolder(of: path)
        try write(in: folder, name: name, permissions: permissions, durability: durability) { writer in
            var writer = writer
            try body(&writer)
        }
    }

    /// Replaces the file `name` in `folder` with `data` (see ``write(in:name:permissions:durability:retiringReplaced:_:)``).
    package static func write(
        _ data: Data, in folder: DirectoryHandle, name: String, permissions: Int = 0o600,
        durability: Durability = .durable, retiringReplaced: Bool = false
    ) throws {
        try write(
            in: folder, name: name, permissions: permissions, durability: durability,
            retiringReplaced: retiringReplaced
        ) { writer in
            var writer = writer
            try writer.write(data)
        }
    }

    /// Replaces the file `name` in an open folder with what `body` writes: the one implementation of the
    /// atomic replace.
    ///
    /// The temporary file is created in `folder` with `O_CREAT | O_EXCL | O_NOFOLLOW`, written, `fsync`ed,
    /// renamed over `name` with `renameat(2)` and the folder `fsync`ed, all relative to the folder's
    /// descriptor: no step looks a path up again, so a neighbour who swaps a folder for a link cannot move
    /// the write elsewhere. `body` owns the ``Writer`` (it may keep it in a value of its own until it returns).
    ///
    /// A durable write creates its temporary without a name where the system can (``createSealedTemporary(in:for:permissions:)``)
    /// and names it only once its content is on disk, so the file's `fsync` does not write the folder too (the
    /// folder's own `fsync` after the rename does): one disk write fewer per replacement, and a process killed before
    /// the rename mostly leaves no temporary at all.
    /// - Parameter retiringReplaced: Whether to open the file being replaced before the rename and close it on
    ///   ``RetiredFiles``' background queue: the rename then drops a name, not the file, and freeing the file (a
    ///   discard on a file system mounted with `discard`, 0.1–2.4 ms a small file on a 2-core test VM) is not on the
    ///   writer's path. The default is `false`.
    /// - Throws: ``StorageError`` from any step, or what `body` throws; the previous file is then untouched and
    ///   no temporary is left behind.
    package static func write(
        in folder: DirectoryHandle, name: String, permissions: Int = 0o600, durability: Durability = .durable,
        retiringReplaced: Bool = false, _ body: (consuming Writer) throws -> Void
    ) throws {
        let path = folder.path(of: name)
        let (fd, temporary, named) =
            durability.syncsToDisk
            ? try createSealedTemporary(in: folder, for: name, permissions: permissions)
            : named(try createTemporary(in: folder, for: name, permissions: permissions))
        var isOpen = true
        var isNamed = named
        var renamed = false
        defer {
            if isOpen { Sys.close(fd) }
            if isNamed, !renamed { try? folder.unlink(temporary) }
        }
        try body(Writer(fd: fd, path: path, startsWriteback: durability.syncsToDisk))
        // A durable replacement flushes twice, and neither flush can go, even when `name` exists already:
        // - The new file's content and inode reach the disk before any name points at it, or a power loss after the
        //   rename reached the disk leaves an empty or torn file at `name`. Only a journal orders the two otherwise
        //   (ext4's `auto_da_alloc` documents it for a file renamed over another in `data=ordered`), and an ext4 may
        //   have none (the test VMs' root: "mounted filesystem ... without journal"); a finished flush orders them
        //   on every file system.
        // - The folder is flushed after the rename, before returning: a rename is not synchronized I/O (POSIX), and
        //   until the folder's `fsync` a power loss may bring the old file back (a journal commits the rename
        //   seconds later; without one, write-back writes the folder's block later still).
        // `fdatasync` would save nothing: a new file's size and blocks are metadata it must write anyway.
        try seal(fd, permissions: permissions, syncing: durability.syncsToDisk, path: path)
        if !isNamed {
            try link(fd, as: temporary, in: folder, for: name)
            isNamed = true
        }
        Sys.close(fd)
        isOpen = false
        let replaced = retiringReplaced ? RetiredFiles.hold(name, in: folder) : nil
        defer { if let replaced { RetiredFiles.release([replaced]) } }
        try moveIntoPlace(temporary, name, in: folder)
        renamed = true
        if durability.syncsToDisk { try folder.sync() }
    }

    /// Creates the temporary file of a durable replacement of `name` in `folder`: without a name (`O_TMPFILE`) once
    /// this process has named such a file (`/proc` is there), else as ``createTemporary(in:for:permissions:unnamed:)``
    /// does (unnamed and named at once while that is unproven, named where the system refuses).
    /// - Returns: Its descriptor, the name it gets (or has), and whether it has it yet (else ``link(_:as:in:for:)``
    ///   gives it, once the content is sealed).
    static func createSealedTemporary(in folder: DirectoryHandle, for name: String, permissions: Int)
        throws -> (fd: FileDescriptor, name: String, isNamed: Bool)
    {
        guard namesUnnamed.load(ordering: .relaxed), createsUnnamed.load(ordering: .relaxed) else {
            return named(
                try createTemporary(
                    in: folder, for: name, permissions: permissions, unnamed: createsUnnamed.load(ordering: .relaxed)))
        }
        let temporary = temporaryPrefix + "\(getpid())-" + uniqueSuffix()
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try Sys.openUnnamed(
                folder.fd, permissions: FilePermissions(permissions), path: folder.path(of: temporary))
        } catch  where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.code) {
            createsUnnamed.store(false, ordering: .relaxed)
            return named(try createTemporary(in: folder, for: name, permissions: permissions))
        } catch {
            throw error.storageError("cannot create a temporary file beside the target", path: folder.path(of: name))
        }
        // The lock of ``createTemporary(in:for:permissions:unnamed:)``, taken now: it is held when the file gets its name.
        try? Sys.flock(fd, LOCK_EX | LOCK_NB, path: folder.path(of: temporary))
        return (fd, temporary, false)
    }

    /// A temporary from ``createTemporary(in:for:permissions:unnamed:)``, which has its name.
    private static func named(_ created: (fd: FileDescriptor, name: String)) -> (
        fd: FileDescriptor, name: String, isNamed: Bool
    ) {
        (created.fd, created.name, true)
    }

    /// Gives the unnamed file `fd`, sealed, its temporary name `temporary` in `folder`.
    /// - Throws: ``StorageError``; where the system cannot name it after all (no `/proc` any more), the next writes
    ///   create named temporaries.
    private static func link(_ fd: FileDescriptor, as temporary: String, in folder: DirectoryHandle, for name: String)
        throws
    {
        do {
            try Sys.linkDescriptor(fd, folder.fd, temporary, path: folder.path(of: temporary))
        } catch {
            if cannotNameUnnamedFiles(error) { createsUnnamed.store(false, ordering: .relaxed) }
            throw error.storageError("cannot name the new content's temporary file", path: folder.path(of: name))
        }
    }

    /// Creates the temporary file of a replacement of `name` in `folder` (exclusively, never through a link).
    /// - Returns: Its descriptor and its name.
    /// - Parameter unnamed: Whether to create the file without a name first and then link it under its
    ///   temporary name (`O_TMPFILE`, where the system has it): the file system allocates the file without
    ///   holding the folder's lock, so threads creating files in one folder do it at the same time. The default
    ///   is `false`: one `open` instead of an `open` and a `link`.
    static func createTemporary(in folder: DirectoryHandle, for name: String, permissions: Int, unnamed: Bool = false)
        throws -> (fd: FileDescriptor, name: String)
    {
        let temporary = temporaryPrefix + "\(getpid())-" + uniqueSuffix()
        do throws(Errno) {
            let fd: FileDescriptor
            if unnamed, let created = try createUnnamed(temporary, in: folder, permissions: permissions) {
                fd = created
            } else {
                fd = try folder.openFile(
                    temporary, .writeOnly, [.create, .exclusive], permissions: FilePermissions(permissions))
            }
            // Held until the temporary is renamed or removed (closing the descriptor drops it): a clean-up in any
            // process, whatever pid namespace or machine it runs on, sees that this temporary is being written.
            // Advisory: a file system without flock(2) falls back on the pid rule of removeStaleTemporaries.
            try? Sys.flock(fd, LOCK_EX | LOCK_NB, path: folder.path(of: temporary))
            return (fd, temporary)
        } catch {
            throw error.storageError("cannot create a temporary file beside the target", path: folder.path(of: name))
        }
    }

    /// Whether unnamed files can be created here: cleared by the first refusal (no `O_TMPFILE`, no `/proc`).
    private static let createsUnnamed = Atomic<Bool>(true)

    /// Whether this process has named an unnamed file (through `/proc/self/fd`): set by the first that worked, so a
    /// durable write names its temporary only after writing it once naming is known to work.
    private static let namesUnnamed = Atomic<Bool>(false)

    /// Whether large batches still create their files unnamed (see ``createTemporary(in:for:permissions:unnamed:)``),
    /// and sets it again (for tests that made the system refuse once).
    package static var createsUnnamedFiles: Bool {
        get { createsUnnamed.load(ordering: .relaxed) }
        set { createsUnnamed.store(newValue, ordering: .relaxed) }
    }

    /// Creates an unnamed file in `folder` and links it as `temporary`, or `nil` where the system cannot.
    private static func createUnnamed(_ temporary: String, in folder: DirectoryHandle, permissions: Int) throws(Errno)
        -> FileDescriptor?
    {
        guard createsUnnamed.load(ordering: .relaxed) else { return nil }
        let path = folder.path(of: temporary)
        let fd: FileDescriptor
        do {
            fd = try Sys.openUnnamed(folder.fd, permissions: FilePermissions(permissions), path: path)
        } catch  where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.code) {
            createsUnnamed.store(false, ordering: .relaxed)
            return nil
        }
        do {
            try Sys.linkDescriptor(fd, folder.fd, temporary, path: path)
        } catch {
            Sys.close(fd)
            guard cannotNameUnnamedFiles(error) else { throw error }
            createsUnnamed.store(false, ordering: .relaxed)
            return nil
        }
        namesUnnamed.store(true, ordering: .relaxed)
        return fd
    }

    /// Whether `error`, from naming an unnamed file, says that this system cannot name one at all (no `/proc`, no
    /// such call), which turns unnamed files off for the whole process. A folder removed under the write fails the
    /// link with `ENOENT` too: that is this write's failure, and the switch stays on while `/proc/self/fd` is there.
    private static func cannotNameUnnamedFiles(_ error: Errno) -> Bool {
        switch error.code {
        case EOPNOTSUPP: true
        case ENOENT: (try? Sys.statFollowingLinks("/proc/self/fd")) == nil
        default: false
        }
    }

    /// Gives a written temporary file its exact mode (open(2)'s is filtered by the umask) and, when `syncing`,
    /// forces its content to disk.
    static func seal(_ fd: FileDescriptor, permissions: Int, syncing: Bool, path: String) throws {
        do {
            try Sys.fchmod(fd, FilePermissions(permissions))
            if syncing { try Sys.fsync(fd, path: path) }
        } catch {
            throw error.storageError("cannot flush the new content to disk", path: path)
        }
    }

    /// Renames a written temporary file over `name`.
    static func moveIntoPlace(_ temporary: String, _ name: String, in folder: DirectoryHandle) throws {
        do {
            try folder.rename(temporary, to: name)
        } catch {
            throw error.storageError("cannot move the new content into place", path: folder.path(of: name))
        }
    }

    /// Opens the folder of `path` (following links in it: the caller chose it) and splits off the file name.
    /// - Throws: ``StorageError`` `.invalidArgument` for a path that names a folder (empty, `/`, `.`, `..`, or ending
    ///   in `/`), or the error opening the folder.
    static func openFolder(of path: String) throws -> (DirectoryHandle, String) {
        let local = LocalPath(path)
        guard let name = local.lastComponent, path.utf8.last != UInt8(ascii: "/") else {
            throw StorageError(
                .invalidArgument, "the path names a folder, not a file", path: path,
                recovery: "Name a file (without a trailing '/')")
        }
        do {
            return (try DirectoryHandle.open(path: local.parent.string), name)
        } catch {
            throw error.storageError("cannot open the folder of the file", path: path)
        }
    }

    /// Streams bytes into the temporary file of an atomic write.
    ///
    /// A durable write hands each full `writebackWindow` of bytes to the disk as soon as it is written
    /// (`sync_file_range`), so the disk writes while the caller produces the rest and the final `fsync` waits only
    /// for the last window: a large durable write costs about what the disk takes, not the copy into the page
    /// cache followed by the disk's time. Durability still comes from that `fsync` alone.
    public struct Writer: ~Copyable {
        private let fd: FileDescriptor
        /// The target's path, for error messages.
        public let path: String
        /// How many bytes were written so far.
        public private(set) var count: Int = 0
        private let startsWriteback: Bool
        /// Bytes before this offset were handed to the disk already.
        private var writebackStart = 0
        package static let writebackWindow = 8 << 20

        fileprivate init(fd: FileDescriptor, path: String, startsWriteback: Bool) {
            self.fd = fd
            self.path = path
            self.startsWriteback = startsWriteback
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
            do {
                try Sys.pwriteAll(fd, bytes, at: Int64(offset), path: path)
            } catch {
                throw error.storageError("cannot patch the new content", path: path)
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
            if startsWriteback, count - writebackStart >= Self.writebackWindow {
                Sys.startWriteback(fd, offset: writebackStart, count: count - writebackStart, path: path)
                writebackStart = count
            }
        }
    }

    /// Reads a whole file, never following a symbolic link nor waiting on a FIFO.
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumSize: Refuse files larger than this many bytes (a guard against hostile input). The default
    ///     is no limit.
    ///   - followGrowth: Whether to keep reading past the size `fstat` reported, for files another process may
    ///     append to. Files that are only ever replaced (by this type) never grow: pass `false` to save a read.
    ///     The default is `true`.
    /// - Returns: The content, or `nil` when there is no file at `path`.
    /// - Throws: ``StorageError``: `.symbolicLink`, `.invalidArgument` when it is not a regular file (a FIFO, a
    ///   device, a folder), `.tooLarge`, or an I/O error.
    public static func read(_ path: String, maximumSize: Int? = nil, followGrowth: Bool = true) throws -> Data? {
        let folder: DirectoryHandle
        let name: String
        do {
            (folder, name) = try openFolder(of: path)
        } catch let error as StorageError where error.errno == ENOENT {
            return nil
        }
        return try read(in: folder, name: name, maximumSize: maximumSize, followGrowth: followGrowth)
    }

    /// Reads the whole file `name` of an open folder, never following a link (see
    /// ``read(_:maximumSize:followGrowth:)``).
    /// - Returns: The content, or `nil` when there is no such file.
    package static func read(
        in folder: DirectoryHandle, name: String, maximumSize: Int? = nil, followGrowth: Bool = true
    )
        throws -> Data?
    {
        try readWithStatus(in: folder, name: name, maximumSize: maximumSize, followGrowth: followGrowth)?.data
    }

    /// Reads the whole file `name` of an open folder, as ``read(in:name:maximumSize:followGrowth:)`` does, with
    /// what `fstat` said of the file before its bytes were read (to recognize this version of it later).
    /// - Returns: The content and the file's status, or `nil` when there is no such file.
    package static func readWithStatus(
        in folder: DirectoryHandle, name: String, maximumSize: Int? = nil, followGrowth: Bool = true
    ) throws -> (data: Data, status: stat)? {
        let (fd, status): (FileDescriptor, stat)
        do {
            // A FIFO, socket, device or folder in the file's place is refused, never waited on.
            (fd, status) = try folder.openRegularFile(name)
        } catch let error where error.code == ENOENT {
            return nil
        } catch {
            // The path only for errors: a read that succeeds does not build it.
            throw error.storageError("cannot open the file", path: folder.path(of: name))
        }
        defer { Sys.close(fd) }
        let data = try readAll(
            fd, status: status, path: folder.path(of: name), maximumSize: maximumSize, followGrowth: followGrowth)
        return (data, status)
    }

    /// Reads from `fd` to the end of the file.
    /// - Parameter path: The file's path, for errors only (built only when one is thrown).
    package static func readAll(
        _ fd: FileDescriptor, path: @autoclosure () -> String, maximumSize: Int? = nil, followGrowth: Bool = true
    ) throws -> Data {
        try readAll(
            fd, status: status(of: fd, path: path()), path: path(), maximumSize: maximumSize,
            followGrowth: followGrowth)
    }

    /// `fstat` of an open file.
    private static func status(of fd: FileDescriptor, path: @autoclosure () -> String) throws -> stat {
        do {
            return try Sys.fstat(fd)
        } catch {
            throw error.storageError("cannot inspect the file", path: path())
        }
    }

    /// Reads from `fd`, whose `fstat` gave `status`, to the end of the file.
    package static func readAll(
        _ fd: FileDescriptor, status: stat, path: @autoclosure () -> String, maximumSize: Int?, followGrowth: Bool
    ) throws -> Data {
        var size = Int(status.st_size)
        if let maximumSize, size > maximumSize {
            throw StorageError(
                .tooLarge, "the file is \(size) bytes, over the limit of \(maximumSize) for this read", path: path())
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
        if let failure { throw failure.storageError("cannot read the file", path: path()) }
        if filled < data.count { data.count = filled }
        guard followGrowth, filled == size else { return data }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while filled == size {
            var got = 0
            chunk.withUnsafeMutableBytes { buffer in
                do throws(Errno) { got = try Sys.read(fd, buffer) } catch { failure = error }
            }
            if let failure { throw failure.storageError("cannot read the file", path: path()) }
            if got == 0 { break }
            if let maximumSize, filled + got > maximumSize {
                throw StorageError(
                    .tooLarge, "the file grew over the limit of \(maximumSize) bytes while being read", path: path())
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
            let fd = try Sys.open(path, .readOnly, .directory)
            defer { Sys.close(fd) }
            try Sys.fsync(fd, path: path)
        } catch {
            throw error.storageError("cannot flush the folder to disk", path: path)
        }
    }

    /// Deletes temporary files left in `folder` by processes that died mid-write (killed with `SIGKILL`, or by a
    /// crash or a power cut).
    ///
    /// A file is removed only when all of these hold: its name is one this type makes
    /// (`.strata-tmp-<pid>-<suffix>`, never anything else in the folder); the process `<pid>` is gone (so never one of
    /// this process's own); and no process holds the exclusive lock
    /// every write keeps on its temporary from its creation to its rename or removal. The lock covers what the
    /// pid cannot: a writer in another pid namespace or on another machine sharing the folder, whose pid means
    /// nothing here. A file of a process that was killed loses its lock with the process, so a later run
    /// removes it at once; one still being written is never touched, however old.
    /// - Returns: How many were removed.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> Int {
        guard let handle = try? DirectoryHandle.open(path: folder) else { return 0 }
        return removeStaleTemporaries(in: handle)
    }

    /// Deletes temporary files left in an open folder by processes that died mid-write, by the rule of
    /// ``removeStaleTemporaries(in:)``.
    /// - Returns: How many were removed.
    @discardableResult
    package static func removeStaleTemporaries(in folder: DirectoryHandle) -> Int {
        guard let names = try? folder.entries() else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(temporaryPrefix) {
            let rest = name.dropFirst(temporaryPrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }) else { continue }
            if pid == getpid() { continue }
            guard kill(pid, 0) == -1 && errno == ESRCH else { continue }
            // Not a link (O_NOFOLLOW), never waiting on a FIFO put in its place (O_NONBLOCK).
            guard let fd = try? folder.openFile(name, .readOnly, .nonBlocking) else { continue }
            defer { Sys.close(fd) }
            guard (try? Sys.flock(fd, LOCK_EX | LOCK_NB, path: folder.path(of: name))) != nil else { continue }
            if (try? folder.unlink(name)) != nil { removed += 1 }
        }
        return removed
    }

    /// A suffix no other temporary of this process has: a random start drawn once, then counted up (one draw
    /// from the system's generator per process instead of one per write). Another process's temporaries differ by
    /// the pid; a stale one of an earlier process with the same pid by the random start.
    static func uniqueSuffix() -> String {
        String(temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue, radix: 36)
    }

    private static let temporaryCounter = Atomic<UInt64>(UInt64.random(in: 0...UInt64.max))
}

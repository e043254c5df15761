package import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AtomicFile {
    /// Up to this many files, ``writeAll(in:names:permissions:renamesLastAfterFolderSync:beforeFolderSync:_:)``
    /// flushes the new files each with its own `fdatasync`, all at the same time; above it, with one `syncfs`.
    ///
    /// Measured for two small files (an item and its manifest): idle, `syncfs` and one by one cost about the same;
    /// with another process's data dirty on the file system, `syncfs` waits for all of it (a 512 MiB rewrite in
    /// the background: 10–65 ms a set instead of 1.6–20 ms). Flushed one after the other, each file after the
    /// first cost about one more cache flush of the disk; flushed at the same time, two cost about what one does
    /// (their flushes meet in one journal commit). A large batch flushes the file system once, on one thread.
    package static let oneByOneFlushLimit = 8

    /// Replaces several files of one folder, each atomically, with one flush to disk for all of them.
    ///
    /// Every new file is written to a temporary beside its target; then all of them are forced to disk together,
    /// renamed over their targets in order, and the folder is `fsync`ed once. Up to ``oneByOneFlushLimit`` files,
    /// the disk is handed every new file first (`sync_file_range`, so their writes go out together) and each is
    /// then `fdatasync`ed, all at the same time on threads of their own (they meet in one journal commit): only
    /// these files are flushed. More files are flushed with one `syncfs(2)` (one `fsync`
    /// each where the system has no `syncfs`), which flushes every file of the file system, other programs' too:
    /// one call instead of one per file, at the price of waiting for whatever else is dirty there. A new file's
    /// mode is set before the flush, but `fdatasync` does not promise to persist it: after a power loss it may be
    /// the mode it was created with, `permissions` less the umask — never wider.
    ///
    /// A crash or a power loss at any point leaves each file old or new, never torn or empty. The replacement is
    /// per file, not all-or-nothing: a crash between two renames leaves the files before it new and the rest old.
    /// - Parameters:
    ///   - folder: The folder of every file.
    ///   - names: The files to replace, distinct.
    ///   - permissions: The new files' mode. The default is 0600.
    ///   - renamesLastAfterFolderSync: Whether the last of `names` is renamed only after the folder's `fsync`: its
    ///     content is flushed with the others', and its rename becomes durable with the folder's next `fsync` (or
    ///     the file system's next commit). For a file that records the others (a manifest): on disk it is never
    ///     newer than they are, even when a power loss keeps some renames and drops others. The default is
    ///     `false`.
    ///   - beforeFolderSync: Runs after the renames (all but a last one held back), before the folder's `fsync`
    ///     (to unlink files the new ones supersede, in the same flush).
    ///   - content: Gives the content of `names[index]`; called once per file, in order, before any rename.
    /// - Throws: ``StorageError`` from any step, or what `content` or `beforeFolderSync` throws. Until the first
    ///   rename nothing has changed, and no temporary is left behind either way; when a rename fails, the files
    ///   before it are replaced and the rest untouched.
    package static func writeAll(
        in folder: DirectoryHandle, names: [String], permissions: Int = 0o600, renamesLastAfterFolderSync: Bool = false,
        beforeFolderSync: () throws -> Void = {}, _ content: (Int) throws -> Data
    ) throws {
        let oneByOne = names.count <= oneByOneFlushLimit
        var temporaries: [String] = []
        temporaries.reserveCapacity(names.count)
        // Open until flushed, when flushed one by one (a large batch closes each at once: no descriptor limit).
        var descriptors: [Int32] = []
        var moved = 0
        defer {
            for fd in descriptors { Sys.close(fd) }
            for temporary in temporaries[moved...] { try? folder.unlink(temporary) }
        }
        for (index, name) in names.enumerated() {
            let data = try content(index)
            let path = folder.path(of: name)
            let (fd, temporary) = try createTemporary(in: folder, for: name, permissions: permissions)
            temporaries.append(temporary)
            if oneByOne { descriptors.append(fd) }
            defer { if !oneByOne { Sys.close(fd) } }
            do {
                try Sys.writeAll(fd, data, path: path)
            } catch {
                throw error.storageError("cannot write the new content", path: path)
            }
            try seal(fd, permissions: permissions, syncing: false, path: path)
            if oneByOne { Sys.startWriteback(fd, offset: 0, count: 0, path: path) }
        }
        if oneByOne {
            try flushTogether(descriptors, of: names, in: folder)
            for fd in descriptors { Sys.close(fd) }
            descriptors = []
        } else {
            try syncFileSystem(temporaries, of: names, in: folder)
        }
        let held = renamesLastAfterFolderSync && !names.isEmpty ? 1 : 0
        for index in 0..<(names.count - held) {
            try moveIntoPlace(temporaries[index], names[index], in: folder)
            moved += 1
        }
        try beforeFolderSync()
        try folder.sync()
        if held == 1, let temporary = temporaries.last, let name = names.last {
            try moveIntoPlace(temporary, name, in: folder)
            moved += 1
        }
    }

    /// `fdatasync`s every descriptor at the same time, one on each thread (the caller's among them), and waits for
    /// all: the file system commits the flushes that meet in one journal commit and one cache flush of the disk,
    /// where flushes one after the other wait for one each. Each file is still flushed by its own `fdatasync`, so
    /// what is durable when this returns is exactly what it is after the same calls in a row. Where the threads
    /// are busy, the caller runs the flushes itself, one after the other.
    /// - Throws: ``StorageError`` for the first file (in order) whose flush failed.
    private static func flushTogether(_ descriptors: [Int32], of names: [String], in folder: DirectoryHandle) throws {
        let failures = Mutex<[Int: Errno]>([:])
        let paths = names.map { folder.path(of: $0) }
        let flush: @Sendable (Int) -> Void = { index in
            do throws(Errno) {
                try Sys.fdatasync(descriptors[index], path: paths[index])
            } catch {
                failures.withLock { $0[index] = error }
            }
        }
        if descriptors.count == 1 {
            flush(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: descriptors.count, execute: flush)
        }
        if let (index, error) = failures.withLock({ $0.min { $0.key < $1.key } }) {
            throw error.storageError("cannot flush the new content to disk", path: paths[index])
        }
    }

    /// Forces the written temporaries to disk with one `syncfs`, or one `fsync` each where there is none.
    private static func syncFileSystem(_ temporaries: [String], of names: [String], in folder: DirectoryHandle)
        throws
    {
        do {
            try Sys.syncFileSystem(folder.fd, path: folder.path)
            return
        } catch  where error.code == ENOSYS {
            // No syncfs here: one fsync per file below.
        } catch {
            throw error.storageError("cannot flush the new files to disk", path: folder.path)
        }
        for (temporary, name) in zip(temporaries, names) { try syncFile(temporary, of: name, in: folder) }
    }

    /// Opens a written temporary file again and `fsync`s it.
    private static func syncFile(_ temporary: String, of name: String, in folder: DirectoryHandle) throws {
        let path = folder.path(of: name)
        do {
            let fd = try folder.openFile(temporary, O_RDONLY)
            defer { Sys.close(fd) }
            try Sys.fsync(fd, path: path)
        } catch {
            throw error.storageError("cannot flush the new content to disk", path: path)
        }
    }
}

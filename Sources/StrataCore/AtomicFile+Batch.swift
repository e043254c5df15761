package import Foundation
package import StrataSystem
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
    /// The file work of more than ``oneByOneFlushLimit`` files runs on ``concurrentFileCalls`` threads: their
    /// contents are gathered first (in order), then the files are created (unnamed, then linked under their
    /// temporary names, where the system can) and written, and later renamed, several at a time. Up to
    /// ``oneByOneFlushLimit`` files, each target is held open across the rename over it and let go of by
    /// ``RetiredFiles``, so freeing the replaced file is not on the writer's path.
    ///
    /// A crash or a power loss at any point leaves each file old or new, never torn or empty. The replacement is
    /// per file, not all-or-nothing: a crash during the renames leaves some files new and the rest old (in the
    /// order of `names` up to ``oneByOneFlushLimit`` files, in any order above).
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
    ///   rename nothing has changed, and no temporary is left behind either way; when a rename fails (the error of
    ///   the lowest index that failed), the files whose rename went through are replaced and the rest untouched.
    package static func writeAll(
        in folder: DirectoryHandle, names: [String], permissions: Int = 0o600, renamesLastAfterFolderSync: Bool = false,
        beforeFolderSync: () throws -> Void = {}, _ content: (Int) throws -> Data
    ) throws {
        let oneByOne = names.count <= oneByOneFlushLimit
        var temporaries: [String] = []
        temporaries.reserveCapacity(names.count)
        // Open until flushed, when flushed one by one (a large batch closes each at once: no descriptor limit).
        var descriptors: [FileDescriptor] = []
        // Which temporaries were renamed into place: the others are removed on the way out.
        let moved = Moved(names.count)
        defer {
            for fd in descriptors { Sys.close(fd) }
            for (index, temporary) in temporaries.enumerated() where !moved.contains(index) {
                try? folder.unlink(temporary)
            }
        }
        if !oneByOne {
            let contents = try names.indices.map { try content($0) }
            temporaries = try writeConcurrently(contents, names: names, in: folder, permissions: permissions)
        }
        for (index, name) in names.enumerated() where oneByOne {
            let data = try content(index)
            let path = folder.path(of: name)
            let (fd, temporary) = try createTemporary(in: folder, for: name, permissions: permissions)
            temporaries.append(temporary)
            descriptors.append(fd)
            do throws(Errno) {
                try Sys.writeAll(fd, data, path: path)
            } catch {
                throw error.storageError("cannot write the new content", path: path)
            }
            try seal(fd, permissions: permissions, syncing: false, path: path)
            Sys.startWriteback(fd, offset: 0, count: 0, path: path)
        }
        if oneByOne {
            try flushTogether(descriptors, of: names, in: folder)
            for fd in descriptors { Sys.close(fd) }
            descriptors = []
        } else {
            try syncFileSystem(temporaries, of: names, in: folder)
        }
        let held = renamesLastAfterFolderSync && !names.isEmpty ? 1 : 0
        if oneByOne {
            var replaced: [FileDescriptor] = []
            defer { RetiredFiles.release(replaced) }
            for index in 0..<(names.count - held) {
                let old = RetiredFiles.hold(names[index], in: folder)
                try moveIntoPlace(temporaries[index], names[index], in: folder)
                moved.insert(index)
                if let old { replaced.append(old) }
            }
        } else {
            try moveConcurrently(temporaries, names, count: names.count - held, in: folder, moved: moved)
        }
        try beforeFolderSync()
        try folder.sync()
        if held == 1, let temporary = temporaries.last, let name = names.last {
            let old = oneByOne ? RetiredFiles.hold(name, in: folder) : nil
            defer { RetiredFiles.release(old.map { [$0] } ?? []) }
            try moveIntoPlace(temporary, name, in: folder)
            moved.insert(names.count - 1)
        }
    }

    /// Creates and writes the temporaries of `names` (not flushed), ``concurrentFileCalls`` at a time: the
    /// files are created unnamed and linked under their temporary names (see
    /// ``createTemporary(in:for:permissions:unnamed:)``), so their allocation runs on every core.
    /// - Returns: The temporaries' names, in the order of `names`.
    /// - Throws: ``StorageError`` for the lowest index that failed; no temporary is left behind then.
    private static func writeConcurrently(
        _ contents: [Data], names: [String], in folder: DirectoryHandle, permissions: Int
    ) throws -> [String] {
        let written = Mutex<(temporaries: [String?], failures: [Int: any Error])>(
            (Array(repeating: nil, count: names.count), [:]))
        BlockingPool.run(names.count, threads: concurrentFileCalls) { index in
            do {
                let path = folder.path(of: names[index])
                let (fd, temporary) = try createTemporary(
                    in: folder, for: names[index], permissions: permissions, unnamed: true)
                defer { Sys.close(fd) }
                written.withLock { $0.temporaries[index] = temporary }
                do throws(Errno) {
                    try Sys.writeAll(fd, contents[index], path: path)
                } catch {
                    throw error.storageError("cannot write the new content", path: path)
                }
                try seal(fd, permissions: permissions, syncing: false, path: path)
            } catch {
                written.withLock { $0.failures[index] = error }
            }
        }
        let (temporaries, failures) = written.withLock { $0 }
        if let (_, error) = failures.min(by: { $0.key < $1.key }) {
            for case let temporary? in temporaries { try? folder.unlink(temporary) }
            throw error
        }
        return temporaries.map { $0! }
    }

    /// How many file creations and renames of a large batch are under way at once.
    ///
    /// Creating a file costs the file system CPU (on ext4 without a journal, a scan past the inodes freed in the
    /// last minutes), which unnamed files spread over every core. A rename over an existing file frees the file it replaces, and on a file system mounted with `discard` and
    /// no journal (ext4 on a 2-core test VM) the freed block is discarded before the call returns: 2.4 ms a file
    /// one at a time there, 0.12 ms four at a time. The folder's lock is held for the rename itself only, not for
    /// the freeing, so renames on several threads overlap their discards.
    package static let concurrentFileCalls = 8

    /// Renames the first `count` temporaries over their targets, ``concurrentFileCalls`` at a time, in no
    /// particular order: each target is replaced atomically, the set of them is not (as one after the other).
    /// - Throws: ``StorageError`` for the lowest index whose rename failed; every other rename was tried, and
    ///   `moved` holds those that went through.
    private static func moveConcurrently(
        _ temporaries: [String], _ names: [String], count: Int, in folder: DirectoryHandle, moved: Moved
    ) throws {
        BlockingPool.run(count, threads: concurrentFileCalls) { index in
            do {
                try moveIntoPlace(temporaries[index], names[index], in: folder)
                moved.insert(index)
            } catch {
                moved.fail(index, error)
            }
        }
        if let error = moved.firstFailure { throw error }
    }

    /// Which temporaries of a ``writeAll(in:names:permissions:renamesLastAfterFolderSync:beforeFolderSync:_:)``
    /// were renamed into place, and the renames that failed, from any thread.
    private final class Moved: Sendable {
        private let state: Mutex<(moved: [Bool], failures: [Int: any Error])>

        init(_ count: Int) { state = Mutex((Array(repeating: false, count: count), [:])) }

        func insert(_ index: Int) { state.withLock { $0.moved[index] = true } }
        func contains(_ index: Int) -> Bool { state.withLock { $0.moved[index] } }
        func fail(_ index: Int, _ error: any Error) { state.withLock { $0.failures[index] = error } }
        /// The failure of the lowest index, if any.
        var firstFailure: (any Error)? { state.withLock { $0.failures.min { $0.key < $1.key }?.value } }
    }

    /// `fdatasync`s every descriptor at the same time, one on each thread (the caller's among them), and waits for
    /// all: the file system commits the flushes that meet in one journal commit and one cache flush of the disk,
    /// where flushes one after the other wait for one each. Each file is still flushed by its own `fdatasync`, so
    /// what is durable when this returns is exactly what it is after the same calls in a row. Where the threads
    /// are busy, the caller runs the flushes itself, one after the other.
    /// - Throws: ``StorageError`` for the first file (in order) whose flush failed.
    private static func flushTogether(_ descriptors: [FileDescriptor], of names: [String], in folder: DirectoryHandle)
        throws
    {
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
            let fd = try folder.openFile(temporary, .readOnly)
            defer { Sys.close(fd) }
            try Sys.fsync(fd, path: path)
        } catch {
            throw error.storageError("cannot flush the new content to disk", path: path)
        }
    }
}

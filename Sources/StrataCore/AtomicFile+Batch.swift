package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AtomicFile {
    /// Replaces several files of one folder, each atomically, with one flush to disk for all of them.
    ///
    /// Every new file is written to a temporary beside its target; then all of them are forced to disk at once
    /// (`syncfs(2)` on Linux, one `fsync` each elsewhere), renamed over their targets in order, and the folder
    /// is `fsync`ed once. A crash or a power loss at any point leaves each file old or new, never torn or empty.
    /// The replacement is per file, not all-or-nothing: a crash between two renames leaves the files before it
    /// new and the rest old.
    ///
    /// `syncfs` flushes every file of the file system, other programs' too: one call instead of one per file,
    /// which is what makes a batch of small files cost about one `fsync` of each kind instead of one per file.
    /// - Parameters:
    ///   - folder: The folder of every file.
    ///   - names: The files to replace, distinct.
    ///   - permissions: The new files' mode. The default is 0600.
    ///   - content: Gives the content of `names[index]`; called once per file, in order, before any rename.
    /// - Throws: ``StorageError`` from any step, or what `content` throws. Until the first rename nothing has
    ///   changed, and no temporary is left behind either way; when a rename fails, the files before it are
    ///   replaced and the rest untouched.
    package static func writeAll(
        in folder: DirectoryHandle, names: [String], permissions: Int = 0o600, _ content: (Int) throws -> Data
    ) throws {
        var temporaries: [String] = []
        temporaries.reserveCapacity(names.count)
        var moved = 0
        defer { for temporary in temporaries[moved...] { try? folder.unlink(temporary) } }
        for (index, name) in names.enumerated() {
            let data = try content(index)
            let path = folder.path(of: name)
            let (fd, temporary) = try createTemporary(in: folder, for: name, permissions: permissions)
            temporaries.append(temporary)
            defer { Sys.close(fd) }
            do {
                try Sys.writeAll(fd, data, path: path)
            } catch {
                throw error.storageError("cannot write the new content", path: path)
            }
            try seal(fd, permissions: permissions, syncing: false, path: path)
        }
        try syncAll(temporaries, of: names, in: folder)
        for (temporary, name) in zip(temporaries, names) {
            try moveIntoPlace(temporary, name, in: folder)
            moved += 1
        }
        try folder.sync()
    }

    /// Forces the written temporaries to disk: one `syncfs` where the system has it, else one `fsync` each.
    private static func syncAll(_ temporaries: [String], of names: [String], in folder: DirectoryHandle) throws {
        guard temporaries.count > 1 else {
            if let temporary = temporaries.first { try syncFile(temporary, of: names[0], in: folder) }
            return
        }
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

import Foundation
package import StrataCore
import StrataFiles
import StrataLocalFiles
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder a restore builds a store in, beside its target: `.strata-restore-<target>-<random>`, held with an
/// exclusive `flock` on the folder itself for as long as the restore runs, then moved to the target with one
/// rename(2) (``move()``), or removed when it is released unmoved. A folder whose lock is free is a dead restore's: the
/// next restore into the same parent removes it.
///
/// Every file of the capture is checked before anything is written for it (a relative path of plain components
/// inside its tier's folder, a store-level file only where the store keeps one, `user.` attributes only, a
/// modification time whose nanoseconds are under 10^9), created
/// with `O_EXCL` through folders opened without following links, and checked against its recorded size (and a
/// files-tier file against the checksum its attributes record); nothing is ever written outside the staging folder.
package final class RestoreStaging {
    /// The start of a staging folder's name.
    static let namePrefix = StoragePaths.reservedPrefix + "restore-"
    /// The mode of every restored file: a restored store is private (``/StrataCore/StoragePaths/Sharing/private``),
    /// whatever modes the capture records.
    static let filePermissions: FilePermissions = 0o600

    /// Where the store goes once it is staged.
    let target: RestoreTarget
    /// The store-level files a capture may hold (their tier is `nil`): the capture's description and those the
    /// caller names.
    let storeFiles: Set<String>
    /// The staging folder's name beside the target.
    let name: String
    /// The staging folder, open.
    package let folder: DirectoryHandle
    /// The staging folder's path: the root of the store staged in it.
    package var path: String { target.parent.path(of: name) }
    private var synced: [String: DirectoryHandle] = [:]
    /// The paths of the files written, for ``makeDurable()`` where the system has no `syncfs`.
    private var written: [String] = []
    private var isFinished = false
    /// The files-tier files whose content, as written, has the CRC-32 and size their attributes record.
    package private(set) var checkedFiles: Set<ExactString> = []

    /// Creates the staging folder beside `target` (after removing dead restores' folders there) and locks it.
    /// - Parameters:
    ///   - target: Where the staged store goes.
    ///   - storeFiles: The store-level files (paths relative to the root) a capture may hold besides its description
    ///     (the store configuration, the catalog's log); any other file outside a tier's folder is refused.
    /// - Throws: ``/StrataCore/StorageError`` when the folder cannot be created or locked.
    package init(besides target: RestoreTarget, storeFiles: Set<String>) throws {
        self.target = target
        self.storeFiles = storeFiles.union([CaptureDescription.path])
        let parent = target.parent
        Self.removeDead(in: parent, target: target.name)
        name = Self.namePrefix + target.name + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        guard let created = try parent.openDirectory(name, create: true, permissions: 0o700) else {
            throw StorageError(.io, "cannot create the restore's staging folder", path: parent.path(of: name))
        }
        folder = created
        do {
            try Sys.flock(folder.fd, LOCK_EX | LOCK_NB, path: parent.path(of: name))
        } catch {
            throw error.storageError("cannot lock the restore's staging folder", path: parent.path(of: name))
        }
    }

    deinit {
        if !isFinished { target.parent.removeTree(name) }
    }

    /// Removes the staging folders of restores into `target` that died (their lock is free).
    static func removeDead(in parent: DirectoryHandle, target: String) {
        let prefix = namePrefix + target + "-"
        for entry in (try? parent.entries()) ?? [] where entry.hasPrefix(prefix) {
            guard let folder = try? parent.openDirectory(entry, create: false) else { continue }
            guard (try? Sys.flock(folder.fd, LOCK_EX | LOCK_NB, path: parent.path(of: entry))) != nil else { continue }
            parent.removeTree(entry)
        }
    }

    /// Checks each of `files`' descriptions and writes them from `source`, in order: content, the store's mode (0600),
    /// attributes, modification time, then the disk is handed the file (`sync_file_range`) without waiting for it. A files-tier
    /// file whose attributes record a checksum must have been written with that CRC-32 and size (the source's
    /// CRC-32 of what it wrote, or the file read back when the source gives none), so that the tier's verification
    /// passes without reading the file again.
    ///
    /// Nothing is durable until ``makeDurable()``, which flushes every file written with one `syncfs`: an `fsync`
    /// per file here (on this thread) held the writing of the next file until the disk had the last one; on workers
    /// (tried, up to 8 at once) a restore's peak memory went from 45 to 267 MiB, likely Dispatch starting more
    /// threads beside the blocked ones, each with its own allocator arena of the read-ahead's freed buffers.
    package func write(_ files: [CapturedFile], from source: some CaptureSource) throws {
        var open: FileDescriptor?
        defer { if let open { Sys.close(open) } }
        try source.write(
            files,
            opening: { file in
                let fd = try create(file)
                open = fd
                return fd
            },
            finishing: { file, fd, crc in
                try finish(file, fd, crc: crc)
                open = nil
                Sys.close(fd)
            })
    }

    /// Checks `file`'s description and creates it, empty, without following links.
    /// - Returns: A descriptor open for writing.
    private func create(_ file: CapturedFile) throws -> FileDescriptor {
        let components = try checkedComponents(of: file)
        var directory = folder
        for component in components.dropLast() {
            let next = try openFolder(component, in: directory, for: file)
            synced[next.path] = next
            directory = next
        }
        let name = components.last!
        do throws(Errno) {
            // Readable too: a file whose CRC-32 the source did not compute is read back through it.
            return try directory.openFile(name, .readWrite, [.create, .exclusive], permissions: 0o600)
        } catch let error where error.code == EEXIST || error.code == ELOOP || error.code == EISDIR {
            throw hostile(file, "the capture names this path twice, or as a file and a folder")
        } catch {
            throw error.storageError("cannot create a restored file", tier: file.tier, path: directory.path(of: name))
        }
    }

    /// Checks the size of `file`, written through `fd`, and the CRC-32 `crc` of its content against the checksum
    /// its attributes record (a files-tier file), gives it the store's mode and its recorded attributes and
    /// modification time, and hands it to the disk.
    private func finish(_ file: CapturedFile, _ fd: FileDescriptor, crc: UInt32?) throws {
        let path = file.path.split(separator: "/").reduce(folder.path) { $0 + "/" + $1 }
        do {
            let size = Int64(try Sys.fstat(fd).st_size)
            guard size == file.size else {
                throw hostile(file, "its content is \(size) bytes where the capture records \(file.size)")
            }
            if file.tier == .files, FileProblem.recordsChecksum(in: file.extendedAttributes) {
                let written = try crc ?? PosixFileEngine.checksum(of: fd, key: file.path, path: path).crc
                if let problem = FileProblem(
                    key: file.path, attributes: file.extendedAttributes, crc: written, size: Int(size))
                {
                    throw hostile(file, "its content does not match the checksum recorded with it (\(problem.detail))")
                }
                checkedFiles.insert(ExactString(file.path))
            }
            // The store's own mode, not the recorded one: a snapshot saying 0666 must not open the store to all.
            try Sys.fchmod(fd, Self.filePermissions)
            for (attribute, value) in file.extendedAttributes.sorted(by: { $0.key < $1.key }) {
                try Sys.setAttribute(fd, attribute, value)
            }
            try Sys.setModificationTime(
                fd, seconds: file.modificationTime.seconds, nanoseconds: file.modificationTime.nanoseconds, path: path)
            Sys.startWriteback(fd, offset: 0, count: 0, path: path)
            written.append(file.path)
        } catch let error as Errno {
            throw error.storageError("cannot finish a restored file", tier: file.tier, path: path)
        }
    }

    /// Opens (creating) the folder `component` of `file`'s path inside `directory`, never through a link.
    private func openFolder(_ component: String, in directory: DirectoryHandle, for file: CapturedFile) throws
        -> DirectoryHandle
    {
        do throws(StorageError) {
            if let next = try directory.openDirectory(component, create: true, permissions: 0o700) { return next }
        } catch {
            guard error.code == .invalidArgument || error.code == .symbolicLink else { throw error }
        }
        throw hostile(file, "a folder on its path is a file the capture holds")
    }

    /// Makes every file and folder written durable: one `syncfs(2)` of the file system that holds the staging
    /// folder (one `fsync` per file where there is none), then each folder's `fsync`.
    ///
    /// `syncfs` also waits for whatever else is dirty on that file system, other programs' writes too; the files'
    /// write-back was started as each was finished, so little of the restore's own data is left to wait for.
    package func makeDurable() throws {
        do {
            try Sys.syncFileSystem(folder.fd, path: folder.path)
        } catch  where error.code == ENOSYS {
            for path in written { try syncFile(path) }
        } catch {
            throw error.storageError("cannot flush the restored files to disk", path: folder.path)
        }
        for (_, directory) in synced.sorted(by: { $0.key > $1.key }) { try directory.sync() }
        try folder.sync()
    }

    /// Opens the written file at `path` (relative to the staging folder) again and `fsync`s it.
    private func syncFile(_ path: String) throws {
        let components = path.split(separator: "/").map(String.init)
        let directory = synced[components.dropLast().reduce(folder.path) { $0 + "/" + $1 }] ?? folder
        let name = components.last ?? path
        do throws(Errno) {
            let fd = try directory.openRegularFile(name).fd
            defer { Sys.close(fd) }
            try Sys.fsync(fd, path: directory.path(of: name))
        } catch {
            throw error.storageError("cannot flush a restored file to disk", path: directory.path(of: name))
        }
    }

    /// Removes the file `name` of the staging folder (written, and no longer wanted).
    package func remove(_ name: String) {
        try? folder.unlink(name)
        written.removeAll { $0 == name }
    }

    /// Moves the staging folder to the target (absent, or an empty folder that is removed first) with rename(2), and
    /// makes the rename durable.
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` when the target exists and is not an empty folder (something
    ///   appeared there since ``RestoreTarget/checkVacant()``), or an I/O error; the staging folder is removed then.
    package func move() throws {
        let parent = target.parent
        do throws(Errno) {
            if let info = try parent.status(of: target.name) {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { throw Errno(EEXIST) }
                try parent.removeDirectory(target.name)
            }
            try parent.rename(name, to: target.name)
        } catch let error where error.code == ENOTEMPTY || error.code == EEXIST || error.code == ENOTDIR {
            // ENOTDIR: a file or link appeared at the target after the check above (rename(2) onto a non-folder).
            throw target.occupied()
        } catch {
            throw error.storageError("cannot move the restored store into place", path: target.path)
        }
        isFinished = true
        try parent.sync()
    }

    /// The components of `file`'s path, checked: relative, plain components, inside its tier's folder and no longer
    /// there than a key, or one of ``storeFiles``.
    func checkedComponents(of file: CapturedFile) throws -> [String] {
        let components = file.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        func refuse(_ why: String) -> StorageError { Self.hostileError(file, why) }
        guard !file.path.isEmpty, !file.path.hasPrefix("/") else { throw refuse("its path is empty or absolute") }
        // Checked before a folder is made for it: no capture holds such a path, which may nest thousands deep.
        let tierFolder = file.tier.map { $0.directoryName.utf8.count + 1 } ?? 0
        guard file.path.utf8.count - tierFolder <= StoragePaths.maximumKeyLength else {
            throw refuse(
                "its path is longer than any key (\(StoragePaths.maximumKeyLength) bytes in its tier's folder)")
        }
        for component in components {
            guard !component.isEmpty, component != ".", component != "..", !component.contains("\0"),
                component.utf8.count <= StoragePaths.maximumComponentLength
            else { throw refuse("its path has an empty, '.', '..' or over-long component") }
        }
        if let attribute = file.extendedAttributes.keys.first(where: { !$0.hasPrefix("user.") }) {
            throw refuse("it carries the attribute '\(attribute)' outside the user namespace")
        }
        if file.size < 0 || file.mode & ~0o777 != 0 { throw refuse("its size or permission bits are invalid") }
        // Outside 0..<10^9, utimensat(2) fails, or reads UTIME_NOW / UTIME_OMIT and sets another time silently.
        guard (0..<1_000_000_000).contains(file.modificationTime.nanoseconds) else {
            throw refuse("its modification time has \(file.modificationTime.nanoseconds) nanoseconds")
        }
        guard let tier = file.tier else {
            guard storeFiles.contains(file.path) else { throw refuse("it is not one of the store's own files") }
            return components
        }
        guard components.count >= 2, components[0] == tier.directoryName else {
            throw refuse("it claims the \(tier.rawValue) tier but lies outside its folder")
        }
        if components.contains(where: { $0.hasPrefix(StoragePaths.reservedPrefix) }) {
            throw refuse("its path uses the reserved prefix \(StoragePaths.reservedPrefix)")
        }
        return components
    }

    private func hostile(_ file: CapturedFile, _ why: String) -> StorageError { Self.hostileError(file, why) }

    static func hostileError(_ file: CapturedFile, _ why: String) -> StorageError {
        StorageError(
            .corrupt, "the capture's file cannot be restored: \(why)", tier: file.tier, path: file.path,
            recovery: "The snapshot is damaged or was made by hand; nothing was written outside the staging folder")
    }
}

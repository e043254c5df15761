import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Limits that protect an import from hostile archives.
public struct ImportLimits: Sendable {
    /// The most all entries may expand to, in bytes. The default is 1 GiB.
    public var maximumTotalSize: Int
    /// The highest expansion ratio an entry (of more than 1 MiB) may have. The default is 200 (a zip bomb is
    /// far above; ordinary text is below 20).
    public var maximumRatio: Int
    /// The most entries an archive may have. The default is 100 000.
    public var maximumEntries: Int

    public init(maximumTotalSize: Int = 1 << 30, maximumRatio: Int = 200, maximumEntries: Int = 100_000) {
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
        self.maximumEntries = maximumEntries
    }
}

extension FileStore {
    /// Extracts a zip archive into the store under `prefix`, all or nothing.
    ///
    /// Every entry is checked before anything is stored: names that would leave the destination (`..`, absolute
    /// paths, backslashes, NUL), duplicate names, a file where a folder is needed (in the archive or in the
    /// store), symbolic links, encrypted or unknown methods, sizes, offsets and ratios that no honest archive
    /// has, CRC mismatches and truncations are refused with a typed error naming the entry (in `key`) and the
    /// archive (in `path`). Entries are extracted into a staging folder first and moved into place only when
    /// all are good; if a move fails, the files already replaced are put back, so a failed import leaves the
    /// store as it was. Every step (staging, inspecting, linking, moving, removing) names one component relative
    /// to an open folder, opened from the tier folder down without following links: a neighbour who swaps a
    /// folder for a symbolic link meanwhile makes the import fail with `.symbolicLink`, never write elsewhere.
    /// - Returns: The keys stored.
    @discardableResult
    public func importZip(from archive: String, into prefix: String = "", limits: ImportLimits = ImportLimits()) throws
        -> [String]
    {
        let reader = try ZipReader(path: archive, limits: limits)
        defer { reader.close() }
        let plan = try ImportPlan(entries: try reader.entries(), prefix: prefix, limits: limits, archive: archive)
        let newFolders = try checkClashes(
            files: plan.files.map { ($0.key, $0.entry.name) }, folders: plan.folders, archive: archive)
        let staging = try makeStaging()
        defer { staging.remove() }
        var staged: [(file: String, key: String)] = []
        for (index, (entry, key)) in plan.files.enumerated() {
            let file = "\(index)"
            try stage(file, in: staging) { writer in
                let crc = try reader.extract(entry) { chunk in try writer.write(chunk) }
                _ = try writer.setExtendedAttribute(
                    Self.integrityAttribute, Self.integrityRecord(crc: crc, size: entry.size))
            }
            staged.append((file, key))
        }
        return try commit(staged, staging: staging, newFolders: newFolders)
    }

    /// Decompresses a gzip file into the store at `key`, with the same checks as ``importZip(from:into:limits:)``.
    ///
    /// Every member is read (as `gzip -d` does) and checked against its CRC-32 and length; bytes after the last
    /// member are refused as `.corrupt`.
    public func importGzip(from archive: String, to key: String, limits: ImportLimits = ImportLimits()) throws {
        try StoragePaths.validateKey(key, for: .files)
        let newFolders = try checkClashes(
            files: [(key, key)], folders: ImportPlan.parents(of: key).map { ($0, key) }, archive: archive)
        let input: Int32
        do {
            input = try Sys.open(archive, O_RDONLY | O_NOFOLLOW)
        } catch  where error.code == ENOENT {
            throw StorageError(.notFound, "there is no gzip file here", tier: .files, path: archive)
        } catch {
            throw error.storageError("cannot open the gzip file", tier: .files, path: archive)
        }
        defer { Sys.close(input) }
        let compressedSize = Int((try? Sys.fstat(input))?.st_size ?? 0)
        let staging = try makeStaging()
        defer { staging.remove() }
        let file = "0"
        try stage(file, in: staging) { writer in
            var crc: UInt32 = 0
            var produced = 0
            var buffer = [UInt8](repeating: 0, count: 256 << 10)
            try GzipReader.decompress(
                path: archive,
                read: {
                    let count = try Self.readChunk(input, into: &buffer, path: archive, key: key)
                    return Array(buffer[0..<count])
                },
                sink: { output in
                    produced += output.count
                    try Self.checkExpansion(produced, compressed: compressedSize, limits: limits, path: archive)
                    crc = LibDeflate.crc32(output, continuing: crc)
                    try writer.write(output)
                })
            _ = try writer.setExtendedAttribute(Self.integrityAttribute, Self.integrityRecord(crc: crc, size: produced))
        }
        _ = try commit([(file, key)], staging: staging, newFolders: newFolders)
    }

    /// Creates the staging folder of an import in the tier folder (removing what dead imports left).
    private func makeStaging() throws -> ImportStaging {
        let tier = try tierFolder()
        return try ImportStaging(in: tier, locks: lockFolder(in: tier))
    }

    /// Writes the file `name` of the staging folder (atomically, relative to its descriptor) with what `body`
    /// writes, with the mode of the store's files (it is moved into place as it is).
    private func stage(_ name: String, in staging: ImportStaging, _ body: (inout AtomicFile.Writer) throws -> Void)
        throws
    {
        try AtomicFile.write(
            in: staging.folder, name: name, permissions: paths.filePermissions, durability: configuration.durability
        ) { writer in
            var writer = writer
            try body(&writer)
        }
    }

    static func checkExpansion(_ produced: Int, compressed: Int, limits: ImportLimits, path: String) throws {
        if produced > limits.maximumTotalSize {
            throw StorageError(
                .limitExceeded, "the archive expands to more than \(limits.maximumTotalSize) bytes", tier: .files,
                path: path)
        }
        if produced > 1 << 20, produced / max(compressed, 1) > limits.maximumRatio {
            throw StorageError(
                .limitExceeded, "the data expands more than \(limits.maximumRatio) times (a decompression bomb?)",
                tier: .files, path: path)
        }
    }

    /// Refuses an import that would put a file where the store has a folder, or need a folder where the store
    /// has a file (at any depth), before anything is extracted.
    /// - Parameters:
    ///   - files: The keys to store, each with the archive entry it comes from.
    ///   - folders: The folders those keys need, parents first, each with the entry that needs it.
    /// - Returns: The folders that do not exist yet (parents first): a rollback removes them again.
    func checkClashes(files: [(key: String, entry: String)], folders: [(key: String, entry: String)], archive: String)
        throws -> [String]
    {
        func clash(_ entry: String, _ why: String) -> StorageError {
            StorageError(
                .invalidArgument, "an archive entry clashes with the store: \(why)", tier: .files, key: entry,
                path: archive, recovery: "Import under another prefix, or move the store's file or folder first")
        }
        var missing: [String] = []
        var missingKeys: Set<ExactString> = []
        func isUnderMissing(_ key: String) -> Bool {
            ImportPlan.parents(of: key).last.map { missingKeys.contains(ExactString($0)) } ?? false
        }
        for (folder, entry) in folders {
            if isUnderMissing(folder) {
                missing.append(folder)
                missingKeys.insert(ExactString(folder))
                continue
            }
            switch try kind(of: folder) {
            case nil:
                missing.append(folder)
                missingKeys.insert(ExactString(folder))
            case S_IFDIR:
                continue
            default:
                throw clash(entry, "the store has a file where the archive needs a folder")
            }
        }
        for (key, entry) in files where !isUnderMissing(key) {
            if let kind = try kind(of: key), kind != S_IFREG {
                throw clash(entry, "the store has a folder (or another non-file) where the archive has a file")
            }
        }
        return missing
    }

    /// The file type (`S_IFREG`, `S_IFDIR`, ...) at a key, or `nil` when nothing is there.
    ///
    /// The key's folder is opened from the tier folder down, never through a link, and the key itself
    /// inspected relative to it without following a link: a link on the way or at the key is refused with
    /// `.symbolicLink`.
    private func kind(of key: String) throws -> mode_t? {
        guard let (folder, name) = try parent(of: key) else { return nil }
        let kind: mode_t?
        do throws(Errno) {
            kind = try folder.status(of: name).map { $0.st_mode & S_IFMT }
        } catch {
            throw error.storageError(
                "cannot inspect the store before an import", tier: .files, key: key, path: folder.path(of: name))
        }
        if kind == S_IFLNK {
            throw StorageError(
                .symbolicLink, "the key leads through a symbolic link, which the store never follows", tier: .files,
                key: key, path: folder.path(of: name),
                recovery: "Replace the link with a real file or folder inside the store")
        }
        return kind
    }

    /// Moves staged files into place, each under its exclusive lock, all or nothing.
    ///
    /// Every step is relative to a folder's descriptor: the key's folder is opened from the tier folder down,
    /// never through a link, and the staged file is moved from the open staging folder into it (`renameat`),
    /// so a neighbour who swaps a folder for a link cannot move an imported file elsewhere. Before a file is
    /// replaced, the previous one gets a second name in the staging folder (`linkat`, so a crash at any moment
    /// leaves the old file or the new one at the key). If any step fails, every file already moved is put back
    /// (or removed, when there was none before) in reverse order, and the folders the import created are
    /// removed: the store ends as it was. A file someone else replaced meanwhile is left alone.
    /// - Parameters:
    ///   - staged: Each staged file's name in the staging folder, with its key.
    ///   - staging: The staging folder.
    ///   - newFolders: The folders the import creates (parents first), removed again by a rollback.
    /// - Returns: The keys stored.
    func commit(_ staged: [(file: String, key: String)], staging: ImportStaging, newFolders: [String]) throws
        -> [String]
    {
        var folders: [ExactString: DirectoryHandle] = [:]
        do {
            for (index, (file, key)) in staged.enumerated() {
                let (folderKey, name) = ImportPlan.split(key)
                let folder = try openFolder(folderKey, creating: true, opened: &folders)
                try withLock(key, .exclusive) {
                    let previous = "previous-\(index)"
                    do throws(Errno) {
                        var kept: String? = previous
                        do throws(Errno) {
                            try folder.link(name, to: previous, in: staging.folder)
                        } catch  where error.code == ENOENT {
                            kept = nil  // Nothing there before.
                        }
                        guard let placed = try staging.folder.status(of: file) else { throw Errno(ENOENT) }
                        try staging.folder.rename(file, to: name, in: folder)
                        staging.record(key: key, folder: folder, name: name, previous: kept, placed: placed)
                    } catch {
                        throw error.storageError(
                            "cannot move an imported file into place", tier: .files, key: key,
                            path: folder.path(of: name))
                    }
                }
            }
        } catch {
            let unrestored = rollBack(staging, newFolders: newFolders, folders: folders)
            guard !unrestored.isEmpty, var failure = error as? StorageError else { throw error }
            failure.recovery =
                "\(unrestored.count) replaced file(s) could not be put back; their previous content is in "
                + staging.keep() + " (named previous-N, in import order)"
            throw failure
        }
        if configuration.durability.syncsToDisk {
            for folder in folders.values { try folder.sync() }
        }
        return staged.map(\.key)
    }

    /// Opens the folder `key` (`""` for the tier folder) from the nearest folder already in `opened`, one
    /// component at a time, never through a link, creating what is missing; every folder opened on the way is
    /// added to `opened`, so a rollback can remove the new ones through their parents' descriptors.
    private func openFolder(_ key: String, creating: Bool, opened: inout [ExactString: DirectoryHandle]) throws
        -> DirectoryHandle
    {
        if let folder = opened[ExactString(key)] { return folder }
        guard !key.isEmpty else {
            let tier = try tierFolder()
            opened[ExactString(key)] = tier
            return tier
        }
        let (parentKey, name) = ImportPlan.split(key)
        let parent = try openFolder(parentKey, creating: creating, opened: &opened)
        do throws(StorageError) {
            guard let folder = try parent.openDirectory(name, create: creating, permissions: paths.directoryPermissions)
            else {
                throw StorageError(.notFound, "a folder of the import disappeared", path: parent.path(of: name))
            }
            opened[ExactString(key)] = folder
            return folder
        } catch {
            throw error.attributed(tier: .files, key: key)
        }
    }

    /// Undoes a commit that failed midway, newest first, relative to the folders the commit opened.
    /// - Parameter folders: The folders the commit opened, by key: a new folder is removed through its parent's
    ///   descriptor (one never opened was never created).
    /// - Returns: The keys whose previous file could not be put back.
    private func rollBack(_ staging: ImportStaging, newFolders: [String], folders: [ExactString: DirectoryHandle])
        -> [String]
    {
        var unrestored: [String] = []
        for placement in staging.placements.reversed() {
            do {
                try withLock(placement.key, .exclusive) {
                    guard let current = try placement.folder.status(of: placement.name) else { throw Errno(ENOENT) }
                    guard UInt64(current.st_ino) == placement.inode, UInt64(current.st_dev) == placement.device else {
                        return  // Replaced by someone else since: their file stays.
                    }
                    if let previous = placement.previous {
                        try staging.folder.rename(previous, to: placement.name, in: placement.folder)
                    } else {
                        try placement.folder.unlink(placement.name)
                    }
                }
            } catch {
                if placement.previous != nil { unrestored.append(placement.key) }
            }
        }
        for folder in newFolders.reversed() {
            let (parentKey, name) = ImportPlan.split(folder)
            try? folders[ExactString(parentKey)]?.removeDirectory(name)  // Only an empty folder goes.
        }
        return unrestored
    }
}

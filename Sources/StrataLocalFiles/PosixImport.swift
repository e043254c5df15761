import Foundation
import StrataCore
import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An import into a ``PosixFileEngine``: entries are extracted into a staging folder of the tier
/// (``ImportStaging``) and moved into place by `rename(2)` only when all are good.
///
/// Every step (staging, inspecting, linking, moving, removing) names one component relative to an open folder,
/// opened from the tier folder down without following links: a neighbour who swaps a folder for a symbolic link
/// meanwhile makes the import fail with `.symbolicLink`, never write elsewhere.
final class PosixImport: ImportTransaction {
    private let engine: PosixFileEngine
    private let staging: ImportStaging

    /// Creates the staging folder of an import in the tier folder (removing what dead imports left).
    init(_ engine: PosixFileEngine) throws {
        self.engine = engine
        let tier = try engine.tierFolder()
        staging = try ImportStaging(in: tier, locks: engine.lockFolder(in: tier))
    }

    /// The key's folder is opened from the tier folder down, never through a link, and the key itself inspected
    /// relative to it without following a link: a link on the way or at the key is refused with `.symbolicLink`.
    func kind(of key: String) throws -> StoreNodeKind? {
        guard let (folder, name) = try engine.parent(of: key) else { return nil }
        let kind: mode_t?
        do throws(Errno) {
            kind = try folder.status(of: name).map { $0.st_mode & S_IFMT }
        } catch {
            throw error.storageError(
                "cannot inspect the store before an import", tier: .files, key: key, path: folder.path(of: name))
        }
        switch kind {
        case nil: return nil
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK:
            throw StorageError(
                .symbolicLink, "the key leads through a symbolic link, which the store never follows", tier: .files,
                key: key, path: folder.path(of: name),
                recovery: "Replace the link with a real file or folder inside the store")
        default: return .other
        }
    }

    /// Writes the staged file atomically, relative to the staging folder's descriptor, with the mode of the store's
    /// files and its integrity attribute (it is moved into place as it is).
    func stage(_ index: Int, _ body: (inout FileWriter) throws -> Void) throws {
        try AtomicFile.write(
            in: staging.folder, name: "\(index)", permissions: engine.paths.filePermissions,
            durability: engine.configuration.durability
        ) { writer in
            try PosixFileEngine.record(into: writer, body)
        }
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
    func commit(_ staged: [(index: Int, key: String)], newFolders: [String]) throws -> [String] {
        var folders: [ExactString: DirectoryHandle] = [:]
        do {
            for (index, key) in staged {
                let file = "\(index)"
                let (folderKey, name) = ImportPlan.split(key)
                let folder = try openFolder(folderKey, creating: true, opened: &folders)
                try engine.withLock(key, .exclusive) {
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
            let unrestored = rollBack(newFolders: newFolders, folders: folders)
            guard !unrestored.isEmpty, var failure = error as? StorageError else { throw error }
            failure.recovery =
                "\(unrestored.count) replaced file(s) could not be put back; their previous content is in "
                + staging.keep() + " (named previous-N, in import order)"
            throw failure
        }
        if engine.configuration.durability.syncsToDisk {
            for folder in folders.values { try folder.sync() }
        }
        return staged.map(\.key)
    }

    func finish() { staging.remove() }

    /// Opens the folder `key` (`""` for the tier folder) from the nearest folder already in `opened`, one
    /// component at a time (a loop, whatever the depth), never through a link, creating what is missing; every
    /// folder opened on the way is added to `opened`, so a rollback can remove the new ones through their parents'
    /// descriptors.
    private func openFolder(_ key: String, creating: Bool, opened: inout [ExactString: DirectoryHandle]) throws
        -> DirectoryHandle
    {
        if let folder = opened[ExactString(key)] { return folder }
        // The tier folder, then each folder down to `key`.
        let chain = [""] + (key.isEmpty ? [] : ImportPlan.parents(of: key) + [key])
        let open = chain.lastIndex { opened[ExactString($0)] != nil } ?? 0
        if open == 0, opened[ExactString("")] == nil { opened[ExactString("")] = try engine.tierFolder() }
        var folder = opened[ExactString(chain[open])]!
        for folderKey in chain[(open + 1)...] {
            let name = ImportPlan.split(folderKey).name
            do throws(StorageError) {
                guard
                    let next = try folder.openDirectory(
                        name, create: creating, permissions: engine.paths.directoryPermissions)
                else {
                    throw StorageError(.notFound, "a folder of the import disappeared", path: folder.path(of: name))
                }
                opened[ExactString(folderKey)] = next
                folder = next
            } catch {
                throw error.attributed(tier: .files, key: folderKey)
            }
        }
        return folder
    }

    /// Undoes a commit that failed midway, newest first, relative to the folders the commit opened.
    /// - Parameter folders: The folders the commit opened, by key: a new folder is removed through its parent's
    ///   descriptor (one never opened was never created).
    /// - Returns: The keys whose previous file could not be put back.
    private func rollBack(newFolders: [String], folders: [ExactString: DirectoryHandle]) -> [String] {
        var unrestored: [String] = []
        for placement in staging.placements.reversed() {
            do {
                try engine.withLock(placement.key, .exclusive) {
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

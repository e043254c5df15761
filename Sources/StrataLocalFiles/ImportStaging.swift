import Foundation
import StrataCore
import StrataFiles
import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The private folder where one import extracts its files before its commit, and what the commit has replaced
/// so far (so that a failed commit can be rolled back).
///
/// The folder is created in the tier folder and kept open: every file staged in it, every previous file kept
/// in it and every move out of it is named relative to its descriptor, and every removal relative to the tier
/// folder's, so a neighbour who swaps a folder for a symbolic link cannot redirect any of them.
///
/// Cross-process rule: the importing process holds an exclusive lock on `.strata-locks/import-<id>.lock`, taken
/// before the folder `.strata-import-<id>` is created and released only after it is removed. A staging folder
/// whose lock can be taken therefore belongs to a process that died (even by `SIGKILL`, which releases its
/// locks): ``removeDead(in:locks:)`` deletes it. A live import's folder is never touched, however old it is.
final class ImportStaging {
    /// A file the commit moved into place: the key's folder (open since the move) and the file's name in it,
    /// the previous file's name in the staging folder (if there was one), and the identity of the file placed,
    /// so that a rollback never removes someone else's later write.
    struct Placement {
        var key: String
        var folder: DirectoryHandle
        var name: String
        var previous: String?
        var device: UInt64
        var inode: UInt64
    }

    static let namePrefix = StoragePaths.reservedPrefix + "import-"
    /// Where staging folders are moved when a rollback could not restore everything: never removed
    /// automatically, since they hold the only copy of the files that were not restored.
    static let keptPrefix = StoragePaths.reservedPrefix + "kept-"

    /// The staging folder, open.
    let folder: DirectoryHandle
    /// The tier folder that holds it.
    private let tier: DirectoryHandle
    /// The staging folder's name in the tier folder (it changes when the folder is kept).
    private(set) var name: String
    private let held: HeldLock
    private(set) var placements: [Placement] = []
    private var isKept = false

    /// The staging folder's path, for messages.
    var path: String { tier.path(of: name) }

    /// Removes what dead imports left, then creates, opens and locks a new staging folder in the tier folder.
    /// - Parameters:
    ///   - tier: The tier folder.
    ///   - locks: Its lock folder (`.strata-locks`).
    init(in tier: DirectoryHandle, locks: DirectoryHandle) throws {
        Self.removeDead(in: tier, locks: locks)
        let id = "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        held = try Self.lock(id, in: locks).acquire(.exclusive, timeout: .nonBlocking)
        self.tier = tier
        name = Self.namePrefix + id
        let path = tier.path(of: name)
        do throws(Errno) {
            try Sys.mkdirat(tier.fd, name, 0o700, path: path)  // Made here: never one that was already there.
        } catch {
            held.release()
            throw error.storageError("cannot create a staging folder", tier: .files, path: path)
        }
        do throws(StorageError) {
            // Opened without following a link: one swapped in meanwhile is refused.
            guard let opened = try tier.openDirectory(name, create: false) else {
                throw StorageError(.notFound, "the staging folder disappeared as it was created", path: path)
            }
            folder = opened
        } catch {
            try? tier.removeDirectory(name)
            held.release()
            throw error.attributed(tier: .files, key: nil)
        }
    }

    /// The lock of the staging folder with this id; its file is removed by its last holder.
    private static func lock(_ id: some StringProtocol, in locks: DirectoryHandle) -> FileLock {
        FileLock(in: locks, name: "import-" + id + ".lock", reclaimsFile: true)
    }

    /// Records a file moved into place (its identity is read from `placed` just before the move).
    func record(key: String, folder: DirectoryHandle, name: String, previous: String?, placed: stat) {
        placements.append(
            Placement(
                key: key, folder: folder, name: name, previous: previous, device: UInt64(placed.st_dev),
                inode: UInt64(placed.st_ino)))
    }

    /// Moves the folder out of the clean-up's reach (after a rollback that could not restore every file).
    /// - Returns: Its new path.
    func keep() -> String {
        let kept = Self.keptPrefix + name.dropFirst(Self.namePrefix.count)
        if (try? tier.rename(name, to: kept)) != nil { name = kept }
        isKept = true
        return path
    }

    /// Deletes the folder (unless kept) and releases its lock.
    func remove() {
        if !isKept { Self.removeFolder(folder, named: name, in: tier) }
        held.release()
    }

    /// Deletes the staging folders of imports whose process is gone. The tier folder is listed through its
    /// descriptor and each staging folder opened without following a link: a link in a staging folder's place
    /// is left alone, never followed.
    /// - Returns: How many were removed.
    @discardableResult
    static func removeDead(in tier: DirectoryHandle, locks: DirectoryHandle) -> Int {
        guard let names = try? tier.entries() else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(namePrefix) {
            // Held: the import is running. Any other failure: leave the folder for a later attempt.
            guard
                let held = try? lock(name.dropFirst(namePrefix.count), in: locks).acquire(
                    .exclusive, timeout: .nonBlocking)
            else { continue }
            if let folder = try? tier.openDirectory(name, create: false) {
                removeFolder(folder, named: name, in: tier)
                removed += 1
            }
            held.release()
        }
        return removed
    }

    /// Removes the open staging folder `name` of `tier` and the files in it (it never holds folders).
    private static func removeFolder(_ folder: DirectoryHandle, named name: String, in tier: DirectoryHandle) {
        for entry in (try? folder.entries()) ?? [] {
            try? folder.unlink(entry)
        }
        try? tier.removeDirectory(name)
    }
}

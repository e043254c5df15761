import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The private folder where one import extracts its files before its commit, and what the commit has replaced
/// so far (so that a failed commit can be rolled back).
///
/// Cross-process rule: the importing process holds an exclusive lock on `.strata-locks/import-<id>.lock`, taken
/// before the folder `.strata-import-<id>` is created and released only after it is removed. A staging folder
/// whose lock can be taken therefore belongs to a process that died (even by `SIGKILL`, which releases its
/// locks): ``removeDead(in:)`` deletes it. A live import's folder is never touched, however old it is.
final class ImportStaging {
    /// A file the commit moved into place, with the previous file's name in the staging folder (if there was
    /// one), and the identity of the file placed, so that a rollback never removes someone else's later write.
    struct Placement {
        var key: String
        var target: String
        var previous: String?
        var device: UInt64
        var inode: UInt64
    }

    static let namePrefix = StoragePaths.reservedPrefix + "import-"
    /// Where staging folders are moved when a rollback could not restore everything: never removed
    /// automatically, since they hold the only copy of the files that were not restored.
    static let keptPrefix = StoragePaths.reservedPrefix + "kept-"

    private(set) var path: String
    private let lockPath: String
    private let held: HeldLock
    private(set) var placements: [Placement] = []
    private var isKept = false

    /// Removes what dead imports left, then creates and locks a new staging folder in the tier folder.
    init(in directory: String) throws {
        Self.removeDead(in: directory)
        let id = "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        lockPath = Self.lockPath(directory, id)
        held = try FileLock(path: lockPath).acquire(.exclusive, timeout: .nonBlocking)
        path = directory + "/" + Self.namePrefix + id
        do {
            try Sys.mkdir(path, 0o700)
        } catch {
            held.release()
            try? Sys.unlink(lockPath)
            throw error.storageError("cannot create a staging folder", tier: .files, path: path)
        }
    }

    private static func lockPath(_ directory: String, _ id: some StringProtocol) -> String {
        directory + "/" + FileStore.lockFolderName + "/import-" + id + ".lock"
    }

    /// Records a file moved into place (its identity is read from `placed` just before the move).
    func record(key: String, target: String, previous: String?, placed: stat) {
        placements.append(
            Placement(
                key: key, target: target, previous: previous, device: UInt64(placed.st_dev),
                inode: UInt64(placed.st_ino)))
    }

    /// Moves the folder out of the clean-up's reach (after a rollback that could not restore every file).
    /// - Returns: Its new path.
    func keep() -> String {
        let kept =
            (path as NSString).deletingLastPathComponent + "/" + Self.keptPrefix
            + (path as NSString).lastPathComponent.dropFirst(Self.namePrefix.count)
        if (try? Sys.rename(path, kept)) != nil { path = kept }
        isKept = true
        return path
    }

    /// Deletes the folder (unless kept) and releases its lock.
    func remove() {
        if !isKept { Self.removeFolder(path) }
        try? Sys.unlink(lockPath)
        held.release()
    }

    /// Deletes the staging folders of imports whose process is gone.
    /// - Returns: How many were removed.
    @discardableResult
    static func removeDead(in directory: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(namePrefix) {
            let lock = FileLock(path: lockPath(directory, name.dropFirst(namePrefix.count)))
            // Held: the import is running. Any other failure: leave the folder for a later attempt.
            guard let held = try? lock.acquire(.exclusive, timeout: .nonBlocking) else { continue }
            removeFolder(directory + "/" + name)
            try? Sys.unlink(lock.path)
            held.release()
            removed += 1
        }
        return removed
    }

    /// Removes a staging folder and the files in it (it never holds folders).
    private static func removeFolder(_ folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            try? Sys.unlink(folder + "/" + name)
        }
        try? Sys.rmdir(folder)
    }
}

import Foundation
public import StrataCore
import StrataSecrets
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder holding many snapshots of a store: content split into content-defined chunks, deduplicated by keyed
/// hash across snapshots, compressed and sealed into packs (see `Documentation/Backup.md` for the format).
///
/// ```swift
/// let repository = try BackupRepository.create(at: "/backups/app", key: .passphrase("correct horse"))
/// let writer = try repository.beginSnapshot()
/// try writer.add(file, contentsOf: descriptor)         // a tier's capture does this, under its lock
/// let summary = try writer.commit(metadata: ["catalog": catalogJSON])
/// let reader = try repository.snapshot(String(summary.id.prefix(8)))
/// ```
///
/// Processes share a repository through `flock(2)` on its `lock` file: backups, reads, `forget` and `check` take
/// it shared, ``prune()`` exclusive, so prune never deletes a pack a running backup or restore may need.
public final class BackupRepository: Sendable {
    /// The repository's folder.
    public let path: String
    let folder: DirectoryHandle
    let data: DirectoryHandle
    let indexFolder: DirectoryHandle
    let snapshotFolder: DirectoryHandle
    let keys: RepositoryKeys
    /// The master key the slots seal (kept to seal a new slot).
    let master: [UInt8]
    /// The name of the key slot this repository was opened with (or made with).
    let openedSlot: Mutex<String>
    let configuration: RepositoryConfiguration
    let chunker: Chunker
    let lock: FileLock
    /// How long an operation waits for the repository lock.
    let lockTimeout: FileLock.Timeout

    static let folderNames = ["keys", "data", "index", "snapshots"]
    /// The largest index file or snapshot file read (1 GiB): a larger one is refused before it is read, so a
    /// damaged or hostile file cannot make a read allocate what it claims.
    static let maximumMetadataFileSize = 1 << 30

    private init(
        path: String, folder: DirectoryHandle, master: [UInt8], slot: String, lockTimeout: FileLock.Timeout
    ) throws {
        self.path = path
        self.folder = folder
        self.master = master
        keys = RepositoryKeys(master: master)
        openedSlot = Mutex(slot)
        self.lockTimeout = lockTimeout
        data = try Self.subfolder("data", of: folder)
        indexFolder = try Self.subfolder("index", of: folder)
        snapshotFolder = try Self.subfolder("snapshots", of: folder)
        let configPath = folder.path(of: "config")
        guard let bytes = try AtomicFile.read(in: folder, name: "config", maximumSize: 1 << 20, followGrowth: false)
        else { throw StorageError(.notAStore, "the folder is not a backup repository (no config)", path: configPath) }
        let body = try SealedFile.open(
            Array(bytes), kind: .configuration, name: "config", key: keys.seal, path: configPath)
        guard let configuration = try? JSONDecoder().decode(RepositoryConfiguration.self, from: Data(body)),
            let chunker = configuration.chunker(keys: keys)
        else { throw StorageError(.corrupt, "the repository configuration does not decode", path: configPath) }
        self.configuration = configuration
        self.chunker = chunker
        lock = FileLock(path: folder.path(of: "lock"))
    }

    /// Makes a new, empty repository.
    ///
    /// Nothing is a repository until its `config` is written, last. A folder that holds only what an interrupted
    /// `create` left (no `config`, empty `data`, `index` and `snapshots`, unused key slots) is taken as empty, and a
    /// `create` that fails removes what it made: a failed or killed `create` never blocks the next one. Two creates
    /// of one folder take its lock in turn.
    /// - Parameters:
    ///   - path: A folder that does not exist yet, or is empty; when it exists, it must be this process's user's
    ///     and not writable by its group or others.
    ///   - key: The first passphrase or key file.
    ///   - options: Chunk and pack sizes. The default suits stores of any size.
    ///   - lockTimeout: How long operations wait for the repository lock. The default is 30 seconds.
    /// - Returns: The repository, open.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the folder holds anything else,
    ///   `.unsafePermissions` for a folder others may change, a key file error, or an I/O error.
    public static func create(
        at path: String, key: RepositoryKey, options: BackupOptions = BackupOptions(),
        lockTimeout: FileLock.Timeout = .seconds(30)
    ) throws -> BackupRepository {
        try options.validate()
        try Sodium.ensureReady()
        let master = Sodium.random(Sodium.keyBytes)
        // The slot first: a key that cannot seal (an empty passphrase, a refused key file) fails before anything
        // is made.
        let slot = Data(try KeySlot.make(sealing: master, under: key).encoded())
        let madeFolder: Bool
        do {
            try Sys.mkdir(path, 0o700)
            madeFolder = true
        } catch let error where error.code == EEXIST {
            madeFolder = false
        } catch {
            throw error.storageError("cannot create the repository folder", path: path)
        }
        let folder = try openFolder(path)
        try folder.checkOwnership(sharing: .private, noun: "repository")
        // Refused before the lock file is made in it: a folder of something else is left as it was.
        if !madeFolder { _ = try interruptedCreation(in: folder) }
        let held = try FileLock(in: folder, name: "lock").acquire(.exclusive, timeout: lockTimeout)
        defer { held.release() }
        // Under the lock: another creation may have finished since the check above.
        try clearInterruptedCreation(in: folder)
        let slotName = randomName()
        do {
            // From here on, everything in the folder is this creation's.
            for name in folderNames { _ = try folder.openDirectory(name, create: true) }
            let keyFolder = try subfolder("keys", of: folder)
            try AtomicFile.write(slot, in: keyFolder, name: slotName)
            let keys = RepositoryKeys(master: master)
            let configuration = RepositoryConfiguration(
                version: 1, id: randomName(), minimumChunk: options.minimumChunk, averageChunk: options.averageChunk,
                maximumChunk: options.maximumChunk, packSize: options.packSize)
            // The configuration last: until it exists, the folder is not a repository.
            let body = Array(try JSONEncoder().encode(configuration))
            try AtomicFile.write(
                Data(SealedFile.seal(body, kind: .configuration, name: "config", key: keys.seal)), in: folder,
                name: "config")
        } catch {
            removeCreation(in: folder, slot: slotName, folder: madeFolder ? path : nil)
            throw error
        }
        return try BackupRepository(
            path: path, folder: folder, master: master, slot: slotName, lockTimeout: lockTimeout)
    }

    /// Opens an existing repository.
    /// - Parameters:
    ///   - path: The repository's folder.
    ///   - key: A passphrase or key file of one of its key slots.
    ///   - lockTimeout: How long operations wait for the repository lock. The default is 30 seconds.
    /// - Throws: ``/StrataCore/StorageError``: `.authenticationFailed` when `key` opens no slot (a wrong passphrase),
    ///   `.limitExceeded` when it opens none of the slots tried and the bounds left others untried (see
    ///   ``maximumKeySlots``), `.unsupportedVersion` for a newer format, `.corrupt` naming a damaged file (or the keys
    ///   folder when it holds no slot), `.notFound` when nothing is at `path` (``/StrataCore/Remedy/createRepository``),
    ///   `.notAStore` when the folder is not a repository, `.unsafePermissions` when every user may write in one of
    ///   its folders.
    public static func open(
        at path: String, key: RepositoryKey, lockTimeout: FileLock.Timeout = .seconds(30)
    ) throws -> BackupRepository {
        try Sodium.ensureReady()
        let folder: DirectoryHandle
        do {
            folder = try openFolder(path)
        } catch let error as StorageError where error.errno == ENOENT {
            var missing = StorageError(
                .notFound, "there is no backup repository at this path", path: path,
                recovery: "Check the path, or create the repository with BackupRepository.create(at:key:)")
            missing.remedy = .createRepository
            throw missing
        }
        // The version first: a newer repository is reported as such whatever the key.
        let configPath = folder.path(of: "config")
        guard let config = try AtomicFile.read(in: folder, name: "config", maximumSize: 1 << 20, followGrowth: false)
        else { throw StorageError(.notAStore, "the folder is not a backup repository (no config)", path: configPath) }
        if config.count > 5, Array(config.prefix(4)) == SealedFile.magic,
            config[config.startIndex + 4] != SealedFile.version
        {
            throw StorageError(
                .unsupportedVersion,
                "the repository has format version \(config[config.startIndex + 4]); this "
                    + "Strata reads version \(SealedFile.version)", path: configPath,
                recovery: "Use a Strata that knows this repository format")
        }
        try folder.checkOwnership(sharing: .group, noun: "repository")
        guard let keyFolder = try folder.openDirectory("keys", create: false) else {
            throw StorageError(.corrupt, "the repository has no keys folder", path: folder.path(of: "keys"))
        }
        var damage: StorageError?
        // The slots read, those tried, those the bounds left untried (see `maximumKeySlots`), and the Argon2id work
        // spent so far.
        var (read, tried, untried) = (0, 0, 0)
        var work: UInt64 = 0
        for name in try ids(in: keyFolder) {
            let slotPath = keyFolder.path(of: name)
            guard read < maximumKeySlots else {
                untried += 1
                continue
            }
            do {
                guard let bytes = try AtomicFile.read(in: keyFolder, name: name, maximumSize: 1 << 16) else { continue }
                read += 1
                let slot = try KeySlot.decode(Array(bytes), path: slotPath)
                if slot.isPassphrase, key.isPassphrase {
                    let cost = try slot.passphraseCost(path: slotPath)
                    guard work + cost.work <= maximumPassphraseWork else {
                        untried += 1
                        continue
                    }
                    work += cost.work
                }
                tried += 1
                if let master = try slot.open(with: key, path: slotPath) {
                    return try BackupRepository(
                        path: path, folder: folder, master: master, slot: name, lockTimeout: lockTimeout)
                }
            } catch let error as StorageError where error.code == .corrupt || error.code == .unsupportedVersion {
                damage = damage ?? error
            }
        }
        if let damage, read == 1, untried == 0 { throw damage }
        guard read > 0 else {
            throw StorageError(
                .corrupt, "the repository has no key slot: nothing can open it", path: keyFolder.path,
                recovery: "Restore the keys folder from a copy of the repository")
        }
        guard untried == 0 else {
            throw StorageError(
                .limitExceeded,
                "the passphrase or key file opens none of the \(tried) key slots tried; \(untried) more were not "
                    + "tried: an open reads at most \(maximumKeySlots) slots, and tries passphrase slots asking for at "
                    + "most \(maximumPassphraseWork >> 20) MiB of Argon2id passes together", path: keyFolder.path,
                recovery: "Open the repository with a key of one of the first slots (in name order), or remove the "
                    + "slots no longer used from the keys folder (each is one file)")
        }
        throw StorageError(
            .authenticationFailed, "the passphrase or key file opens none of the repository's \(read) key slots",
            path: keyFolder.path, recovery: "Give the passphrase or key file the repository was made with")
    }

    /// The repository's folder.
    static func openFolder(_ path: String) throws -> DirectoryHandle {
        do throws(Errno) {
            return try DirectoryHandle.open(path: path)
        } catch {
            throw error.storageError("cannot open the repository folder", path: path)
        }
    }

    /// One of the repository's folders.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when it is missing, `.unsafePermissions` when every user
    ///   may write in it.
    static func subfolder(_ name: String, of folder: DirectoryHandle) throws -> DirectoryHandle {
        guard let handle = try folder.openDirectory(name, create: false) else {
            throw StorageError(
                .corrupt, "the repository has no \(name) folder", path: folder.path(of: name),
                recovery: "Restore the repository from a copy; its layout is incomplete")
        }
        try handle.checkOwnership(sharing: .group, noun: "repository")
        return handle
    }

    /// The names in a folder of the repository, leaving out temporaries.
    static func names(in folder: DirectoryHandle) throws -> [String] {
        do {
            return try folder.entries().filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw error.storageError("cannot list a repository folder", path: folder.path)
        }
    }

    /// The names in a folder of the repository that it may have written (see ``isID(_:)``), in order, and the paths
    /// of the others: foreign entries that no operation reads, changes or deletes.
    static func listing(of folder: DirectoryHandle) throws -> (ids: [String], foreign: [String]) {
        let all = try names(in: folder)
        return (all.filter(isID), all.filter { !isID($0) }.map(folder.path(of:)))
    }

    /// The names in a folder of the repository that it may have written, in order.
    static func ids(in folder: DirectoryHandle) throws -> [String] { try listing(of: folder).ids }

    /// Whether `name` is one the repository gives its files (packs, index files, snapshots, key slots): 64 lowercase
    /// hex digits, so it names a file inside its folder and nothing else.
    static func isID(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The one name in `folder` that starts with `prefix` (an id or a unique prefix of one, any case).
    /// - Parameters:
    ///   - noun: What the folder holds (`snapshot`, `key slot`), for the errors.
    ///   - command: The verb that lists them, for the errors' recovery.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (no such name) or `.invalidArgument` (an ambiguous prefix).
    static func resolve(_ prefix: String, in folder: DirectoryHandle, noun: String, listedBy command: String) throws
        -> String
    {
        let matches = try ids(in: folder).filter { $0.hasPrefix(prefix.lowercased()) }
        guard !prefix.isEmpty, let first = matches.first else {
            throw StorageError(
                .notFound, "no \(noun) has this id", key: prefix, path: folder.path,
                recovery: "List them with `\(command)`")
        }
        guard matches.count == 1 else {
            throw StorageError(
                .invalidArgument, "\(matches.count) \(noun)s start with this prefix", key: prefix,
                recovery: "Give more digits of the id")
        }
        return first
    }

    /// 64 random hex digits: the name of a pack, an index file, a snapshot or a key slot.
    static func randomName() -> String { Hex.encode(Sodium.random(32)) }

    /// Takes the repository lock.
    func acquire(_ mode: FileLock.Mode) throws -> HeldLock {
        try lock.acquire(mode, timeout: lockTimeout)
    }

    /// Removes what killed processes left: temporary files of packs, index files and snapshots.
    func removeLeftovers() {
        for handle in [data, indexFolder, snapshotFolder] { AtomicFile.removeStaleTemporaries(in: handle) }
    }
}

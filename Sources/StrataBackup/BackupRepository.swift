import Foundation
public import StrataCore
import StrataSecrets
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
    /// - Parameters:
    ///   - path: A folder that does not exist yet, or is empty.
    ///   - key: The first passphrase or key file.
    ///   - options: Chunk and pack sizes. The default suits stores of any size.
    ///   - lockTimeout: How long operations wait for the repository lock. The default is 30 seconds.
    /// - Returns: The repository, open.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the folder holds anything, or an I/O error.
    public static func create(
        at path: String, key: RepositoryKey, options: BackupOptions = BackupOptions(),
        lockTimeout: FileLock.Timeout = .seconds(30)
    ) throws -> BackupRepository {
        try options.validate()
        try Sodium.ensureReady()
        do {
            try Sys.mkdir(path, 0o700)
        } catch let error where error.code == EEXIST {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path), entries.isEmpty else {
                throw StorageError(
                    .invalidArgument, "the folder exists and is not empty", path: path,
                    recovery: "Give a new or empty folder for a new repository")
            }
        } catch {
            throw error.storageError("cannot create the repository folder", path: path)
        }
        let folder = try openFolder(path)
        for name in folderNames { _ = try folder.openDirectory(name, create: true) }
        let master = Sodium.random(Sodium.keyBytes)
        let keys = RepositoryKeys(master: master)
        let keyFolder = try folder.openDirectory("keys", create: false)!
        let slotName = randomName()
        try AtomicFile.write(
            Data(try KeySlot.make(sealing: master, under: key).encoded()), in: keyFolder, name: slotName)
        let configuration = RepositoryConfiguration(
            version: 1, id: randomName(), minimumChunk: options.minimumChunk, averageChunk: options.averageChunk,
            maximumChunk: options.maximumChunk, packSize: options.packSize)
        // The configuration last: until it exists, the folder is not a repository.
        let body = Array(try JSONEncoder().encode(configuration))
        try AtomicFile.write(
            Data(SealedFile.seal(body, kind: .configuration, name: "config", key: keys.seal)), in: folder,
            name: "config")
        return try BackupRepository(
            path: path, folder: folder, master: master, slot: slotName, lockTimeout: lockTimeout)
    }

    /// Opens an existing repository.
    /// - Parameters:
    ///   - path: The repository's folder.
    ///   - key: A passphrase or key file of one of its key slots.
    ///   - lockTimeout: How long operations wait for the repository lock. The default is 30 seconds.
    /// - Throws: ``/StrataCore/StorageError``: `.authenticationFailed` when `key` opens no slot (a wrong passphrase),
    ///   `.unsupportedVersion` for a newer format, `.corrupt` naming a damaged file (or the keys folder when it
    ///   holds no slot), `.notAStore` when the folder is not a repository.
    public static func open(
        at path: String, key: RepositoryKey, lockTimeout: FileLock.Timeout = .seconds(30)
    ) throws -> BackupRepository {
        try Sodium.ensureReady()
        let folder = try openFolder(path)
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
        guard let keyFolder = try folder.openDirectory("keys", create: false) else {
            throw StorageError(.corrupt, "the repository has no keys folder", path: folder.path(of: "keys"))
        }
        var damage: StorageError?
        var slotCount = 0
        for name in try names(in: keyFolder) {
            let slotPath = keyFolder.path(of: name)
            do {
                guard let bytes = try AtomicFile.read(in: keyFolder, name: name, maximumSize: 1 << 16) else { continue }
                slotCount += 1
                let slot = try KeySlot.decode(Array(bytes), path: slotPath)
                if let master = try slot.open(with: key, path: slotPath) {
                    return try BackupRepository(
                        path: path, folder: folder, master: master, slot: name, lockTimeout: lockTimeout)
                }
            } catch let error as StorageError where error.code == .corrupt || error.code == .unsupportedVersion {
                damage = damage ?? error
            }
        }
        if let damage, slotCount == 1 { throw damage }
        guard slotCount > 0 else {
            throw StorageError(
                .corrupt, "the repository has no key slot: nothing can open it", path: keyFolder.path,
                recovery: "Restore the keys folder from a copy of the repository")
        }
        throw StorageError(
            .authenticationFailed, "the passphrase or key file opens none of the repository's \(slotCount) key slots",
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
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when it is missing.
    static func subfolder(_ name: String, of folder: DirectoryHandle) throws -> DirectoryHandle {
        guard let handle = try folder.openDirectory(name, create: false) else {
            throw StorageError(
                .corrupt, "the repository has no \(name) folder", path: folder.path(of: name),
                recovery: "Restore the repository from a copy; its layout is incomplete")
        }
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

    /// The one name in `folder` that starts with `prefix` (an id or a unique prefix of one, any case).
    /// - Parameters:
    ///   - noun: What the folder holds (`snapshot`, `key slot`), for the errors.
    ///   - command: The verb that lists them, for the errors' recovery.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (no such name) or `.invalidArgument` (an ambiguous prefix).
    static func resolve(_ prefix: String, in folder: DirectoryHandle, noun: String, listedBy command: String) throws
        -> String
    {
        let matches = try names(in: folder).filter { $0.hasPrefix(prefix.lowercased()) }
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

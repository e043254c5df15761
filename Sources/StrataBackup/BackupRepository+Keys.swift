import Foundation
import StrataCore
import StrataSecrets
import StrataSystem
import Synchronization

// Key slots: several passphrases or key files can open one repository, each sealing the same master key, so adding,
// removing or changing one rewrites one small file and never touches packs, indexes or snapshots.
extension BackupRepository {
    /// The most key slots a repository holds: ``addKey(_:)`` refuses one more, and an open reads no more (in name
    /// order), so what a wrong key costs is bounded.
    public static let maximumKeySlots = 16
    /// The most Argon2id work the passphrase slots of a repository ask for together, in passes × bytes: four slots at
    /// `PasswordHashCost.moderate` (3 passes over 256 MiB), or sixteen at `.interactive`. ``addKey(_:)`` refuses a
    /// slot past it, and an open tries no passphrase slot past it, so a wrong passphrase costs at most this much
    /// hashing.
    public static let maximumPassphraseWork: UInt64 = 4 * 3 * (256 << 20)

    /// The repository's key slots, in id order.
    /// - Throws: ``/StrataCore/StorageError`` when the keys folder cannot be read (a damaged slot is listed with its
    ///   ``RepositoryKeySlot/damage``, not thrown).
    public func keySlots() throws -> [RepositoryKeySlot] {
        let keyFolder = try Self.subfolder("keys", of: folder)
        let current = openedSlot.withLock { $0 }
        return try Self.ids(in: keyFolder).compactMap { name in
            let path = keyFolder.path(of: name)
            let created = (try? keyFolder.status(of: name)).flatMap { $0 }.map {
                Date(timeIntervalSince1970: TimeInterval($0.st_mtim.tv_sec))
            }
            do {
                guard let bytes = try AtomicFile.read(in: keyFolder, name: name, maximumSize: 1 << 16) else {
                    return nil
                }
                let slot = try KeySlot.decode(Array(bytes), path: path)
                let isPassphrase = slot.kind == "passphrase"
                return RepositoryKeySlot(
                    id: name, kind: isPassphrase ? .passphrase : .keyFile,
                    cost: isPassphrase
                        ? slot.operations.flatMap { operations in
                            slot.memory.map { PasswordHashCost(operations: operations, memory: $0) }
                        } : nil,
                    created: created, isCurrent: name == current, damage: nil)
            } catch let error as StorageError where error.code == .corrupt || error.code == .unsupportedVersion {
                return RepositoryKeySlot(
                    id: name, kind: nil, cost: nil, created: created, isCurrent: name == current, damage: error)
            }
        }
    }

    /// Adds a key slot that `key` opens: another passphrase or key file for the same repository.
    /// - Returns: The new slot's id.
    /// - Throws: ``/StrataCore/StorageError`` `.limitExceeded` when the repository holds ``maximumKeySlots`` slots
    ///   already or the new slot's Argon2id cost would take the passphrase slots past ``maximumPassphraseWork``,
    ///   `.invalidArgument` for an empty passphrase, a key file error (`.unsafePermissions`, `.invalidArgument`), or
    ///   an I/O error; `.lockTimeout` while a prune runs.
    @discardableResult
    public func addKey(_ key: RepositoryKey) throws -> String {
        let held = try acquire(.shared)
        defer { held.release() }
        try checkBounds(adding: key, replacing: nil)
        return try writeSlot(key)
    }

    /// Removes a key slot: its passphrase or key file no longer opens the repository.
    ///
    /// The slot this repository was opened with cannot be removed (open it with another key first, or use
    /// ``changeKey(to:)``), so at least one working slot always stays.
    /// - Parameter id: The slot's id, or a unique prefix of it.
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` (no such slot), `.invalidArgument` (an ambiguous prefix, or
    ///   the current slot), `.lockTimeout` while backups or a prune run.
    public func removeKey(_ id: String) throws {
        let held = try acquire(.exclusive)
        defer { held.release() }
        let keyFolder = try Self.subfolder("keys", of: folder)
        let name = try Self.resolve(id, in: keyFolder, noun: "key slot", listedBy: "key list")
        guard name != openedSlot.withLock({ $0 }) else {
            throw StorageError(
                .invalidArgument,
                "this is the key slot the repository was opened with; removing it could leave no "
                    + "key you hold", key: id, path: keyFolder.path(of: name),
                recovery: "Open the repository with another of its keys to remove this one, or change this key with "
                    + "`key passwd`")
        }
        try delete(name, in: keyFolder)
        try keyFolder.sync()
    }

    /// Replaces the key this repository was opened with by `key`: a new slot is written and made durable first,
    /// then the old slot removed, so a crash in between leaves both keys working, never neither.
    /// - Returns: The new slot's id.
    /// - Throws: As ``addKey(_:)``, and `.lockTimeout` while backups or a prune run.
    @discardableResult
    public func changeKey(to key: RepositoryKey) throws -> String {
        let held = try acquire(.exclusive)
        defer { held.release() }
        let keyFolder = try Self.subfolder("keys", of: folder)
        let old = openedSlot.withLock { $0 }
        try checkBounds(adding: key, replacing: old)
        let new = try writeSlot(key)
        try delete(old, in: keyFolder)
        try keyFolder.sync()
        openedSlot.withLock { $0 = new }
        return new
    }

    /// Refuses a slot for `key` that would take the repository past ``maximumKeySlots`` or
    /// ``maximumPassphraseWork``, once the slot `replacing` is gone.
    /// - Throws: ``/StrataCore/StorageError`` `.limitExceeded`.
    private func checkBounds(adding key: RepositoryKey, replacing: String?) throws {
        let others = try keySlots().filter { $0.id != replacing }
        let costs = others.compactMap(\.cost) + (key.isPassphrase ? [key.cost] : [])
        let work = costs.reduce(UInt64(0)) { total, cost in
            let (sum, overflow) = total.addingReportingOverflow(cost.work)
            return overflow ? .max : sum
        }
        let folder = try Self.subfolder("keys", of: folder).path
        guard others.count < Self.maximumKeySlots else {
            throw StorageError(
                .limitExceeded, "the repository holds \(others.count) key slots, the most it may", path: folder,
                recovery: "Remove a slot no longer used first (`key remove`)")
        }
        guard work <= Self.maximumPassphraseWork else {
            throw StorageError(
                .limitExceeded,
                "with this slot, the passphrase slots would ask for \(work >> 20) MiB of Argon2id passes together; "
                    + "the most is \(Self.maximumPassphraseWork >> 20) MiB", path: folder,
                recovery:
                    "Use a lower cost, a key file, or remove a passphrase slot no longer used first (`key remove`)"
            )
        }
    }

    /// Writes a new slot sealing the master key under `key` (temporary file, flush, rename, folder flush).
    private func writeSlot(_ key: RepositoryKey) throws -> String {
        let keyFolder = try Self.subfolder("keys", of: folder)
        let name = Self.randomName()
        try AtomicFile.write(Data(try KeySlot.make(sealing: master, under: key).encoded()), in: keyFolder, name: name)
        return name
    }
}

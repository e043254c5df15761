public import Foundation
public import StrataCore
import Synchronization

/// The byte-level view of a suite, so ``/StrataCore/BackendRegistry`` and the selector can route preferences here.
///
/// Keys follow ``/StrataCore/StoragePaths/validateKey(_:)`` like every backend's. Values put here are stored as plist
/// `<data>`; reading a key that holds another type returns its byte form (``PropertyListValue/byteForm()``: a string's
/// UTF-8, an integer's digits, ...), and its metadata names that form's content type
/// (``PropertyListValue/byteFormContentType``), so the value can move to another tier and back as the same type.
extension DefaultsStore: StorageBackend {
    public var tier: Tier { .defaults }
    public var name: String { "plist" }

    public func put(_ value: Data, for key: String) throws {
        try StoragePaths.validateKey(key, for: .defaults)
        try set(.data(value), forKey: key)
    }

    /// Stores `value`; a credential-looking key name is accepted when the descriptor
    /// ``/StrataCore/DataDescriptor/allowsSensitiveName``.
    public func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws {
        try StoragePaths.validateKey(key, for: .defaults)
        try set(.data(value), forKey: key, allowingSensitiveName: descriptor.allowsSensitiveName)
    }

    /// Reads from memory; writes merged under the suite's file lock by any process.
    public var concurrencyGuarantee: String { facts.concurrencyGuarantee }

    /// The configuration's ``DefaultsConfiguration/durability``.
    public var durability: Durability { configuration.durability }

    /// The suite file and its lock file.
    public var layout: [StorageLayoutEntry] { facts.layout }

    /// The facts an instance opened on `suite` reports, without opening it (for tools that must not change a
    /// store they inspect).
    public static func facts(suite: String, paths: StoragePaths, configuration: DefaultsConfiguration) -> BackendFacts {
        let file = paths.directoryPath(for: .defaults) + "/" + suite + ".plist"
        return BackendFacts(
            tier: .defaults, name: "plist",
            concurrencyGuarantee: "any thread, any process: reads from memory, writes merged per key under the "
                + "suite's file lock, the file replaced by rename",
            durability: configuration.durability,
            layout: [
                StorageLayoutEntry(
                    .file, file, role: "suite '\(suite)' (\(configuration.format.rawValue) property list)"),
                StorageLayoutEntry(.file, file + ".lock", role: "lock file, held by writers (never deleted)"),
                StorageLayoutEntry(
                    .file, file + ".changes", role: "change counter, bumped by every writer, mapped by readers"),
            ])
    }

    /// The facts, computed once from the suite and configuration.
    public var facts: BackendFacts { Self.facts(suite: suite, paths: paths, configuration: configuration) }

    /// The value of `key` in memory, caught up with what other processes' Strata writers have finished (the suite's
    /// change counter); on a miss, the file is checked too (one `fstatat`, a reload only if another program replaced
    /// it): a miss must not be answered from a stale memory.
    func storedValue(_ key: String) throws -> PropertyListValue? {
        catchUpWithOtherProcesses()
        let exact = ExactString(key)
        if let stored = state.withLock({ $0.values[exact] }) { return stored }
        try refresh()
        return state.withLock { $0.values[exact] }
    }

    public func data(for key: String) throws -> Data? {
        try StoragePaths.validateKey(key, for: .defaults)
        guard let stored = try storedValue(key) else { return nil }
        do {
            return try stored.byteForm()
        } catch {
            throw error.attributed(tier: .defaults, key: key)
        }
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .defaults)
        return try removeObject(forKey: key)
    }

    public func contains(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key, for: .defaults)
        return try storedValue(key) != nil
    }

    public func keys() throws -> [String] { allKeys }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try StoragePaths.validateKey(key, for: .defaults)
        guard let stored = try storedValue(key) else { return nil }
        let size = try data(for: key)?.count ?? 0
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        return StorageMetadata(
            key: key, size: size, modificationDate: modified, contentType: stored.byteFormContentType)
    }
}

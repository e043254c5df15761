public import Foundation
import Synchronization

/// A backend that keeps values in memory, for tests and for apps that want a scratch tier.
///
/// Nothing survives the process. It validates keys with the same rules as the persistent backends
/// (``StoragePaths/validateKey(_:)``), so tests written against it do not pass keys a real store refuses.
///
/// ```swift
/// let registry = BackendRegistry()
/// registry.register(.defaults, name: "memory") { _ in InMemoryBackend(tier: .defaults) }
/// ```
public final class InMemoryBackend: StorageBackend {
    public let tier: Tier
    public let name: String
    /// The largest value accepted, or `nil` for no limit. The default is no limit.
    public let valueLimit: Int?

    private struct Entry {
        var value: Data
        var modified: Date
    }

    /// Keyed by exact scalars: canonically equivalent spellings are two keys, as in every tier.
    private let entries = Mutex<[ExactString: Entry]>([:])

    /// Creates an empty in-memory backend.
    /// - Parameters:
    ///   - tier: The tier it serves.
    ///   - name: Its name in listings. The default is `memory`.
    ///   - valueLimit: The largest value it accepts, or `nil` for no limit.
    public init(tier: Tier, name: String = "memory", valueLimit: Int? = nil) {
        self.tier = tier
        self.name = name
        self.valueLimit = valueLimit
    }

    public func put(_ value: Data, for key: String) throws {
        try check(key)
        if let valueLimit, value.count > valueLimit {
            throw StorageError(
                .tooLarge, "the value of \(value.count) bytes is over this backend's limit of \(valueLimit)",
                tier: tier, key: key)
        }
        let entry = Entry(value: value, modified: Date())
        entries.withLock { $0[ExactString(key)] = entry }
    }

    public func data(for key: String) throws -> Data? {
        try check(key)
        return entries.withLock { $0[ExactString(key)]?.value }
    }

    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try check(key)
        return entries.withLock { $0.removeValue(forKey: ExactString(key)) != nil }
    }

    public func contains(_ key: String) throws -> Bool {
        try check(key)
        return entries.withLock { $0[ExactString(key)] != nil }
    }

    public func keys() throws -> [String] {
        entries.withLock { Array($0.keys) }.sorted().map(\.string)
    }

    public func metadata(for key: String) throws -> StorageMetadata? {
        try check(key)
        return entries.withLock { $0[ExactString(key)] }.map {
            StorageMetadata(key: key, size: $0.value.count, modificationDate: $0.modified)
        }
    }

    /// Any thread; one process (the values live in its memory).
    public var concurrencyGuarantee: String {
        "any thread, one process: values in this process's memory under one lock; other processes never see them"
    }

    /// Atomic in memory; nothing survives the process.
    public var durability: Durability { .atomicOnly }

    /// The process's memory.
    public var layout: [StorageLayoutEntry] {
        [StorageLayoutEntry(.memory, "memory", role: "values of the '\(name)' backend; nothing is written to disk")]
    }

    private func check(_ key: String) throws { try StoragePaths.validateKey(key, for: tier) }
}

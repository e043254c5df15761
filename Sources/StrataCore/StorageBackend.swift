public import Foundation

/// The byte-level contract every storage backend honours, so the registry can route any value to any tier and
/// one conformance suite (`StrataConformance`) can test every backend.
///
/// Each tier also has a richer typed API of its own; this protocol is the common ground.
///
/// Requirements every implementation must meet:
/// - Safe to call from many threads at once (`Sendable`), and from several processes when the backend is persistent.
/// - `data(for:)` returns `nil` only when the key is absent; every other failure throws.
/// - `put` replaces atomically: a reader sees the old value or the new one, never a mix or nothing.
/// - Keys are validated: a key the backend cannot store throws ``StorageError`` with code `.invalidKey`.
public protocol StorageBackend: Sendable {
    /// The tier this backend serves.
    var tier: Tier { get }
    /// A short name for messages and listings (for example `memory` or `plist`).
    var name: String { get }

    /// Stores `value` under `key`, replacing any previous value atomically.
    /// - Throws: ``StorageError`` when the key is refused, the value is too large for the tier, or I/O fails.
    func put(_ value: Data, for key: String) throws

    /// Stores `value` as `descriptor` describes it, replacing any previous value atomically. A backend that refuses
    /// some keys by their name (defaults refuses credential-looking names) honours
    /// ``DataDescriptor/allowsSensitiveName`` here. `Storage` calls this form; the default calls ``put(_:for:)``.
    /// - Throws: As ``put(_:for:)``.
    func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws

    /// The value stored under `key`, or `nil` when there is none.
    /// - Throws: ``StorageError`` for every failure other than absence.
    func data(for key: String) throws -> Data?

    /// Removes the value under `key`.
    /// - Returns: Whether there was a value to remove.
    @discardableResult
    func delete(_ key: String) throws -> Bool

    /// Removes the value under `key` and every copy of its bytes the backend keeps beside it: freed database
    /// pages and journals, the blocks of a deleted file (overwritten before it is unlinked). `Storage` calls it
    /// to remove the plaintext copy of a value that became a credential. The default implementation calls
    /// ``delete(_:)``: right for a backend that keeps no such copies (one that rewrites its whole file, or
    /// encrypts every value).
    /// - Returns: Whether there was a value to remove.
    @discardableResult
    func deleteSecurely(_ key: String) throws -> Bool

    /// Whether a value is stored under `key`.
    func contains(_ key: String) throws -> Bool

    /// Every key that has a value, sorted.
    func keys() throws -> [String]

    /// Size, dates and content type of the value under `key`, or `nil` when there is none.
    func metadata(for key: String) throws -> StorageMetadata?

    /// Makes every write and delete this backend has acknowledged durable, for a backend that coalesces them
    /// (the defaults tier writes a suite file after a short delay). `Storage` calls it before it records that
    /// a value moved here, and after it removed the old copy of a moved value, so that a crash can neither lose
    /// the new copy nor bring the old one back. The default implementation does nothing: every write is
    /// durable when `put` returns.
    func flush() throws

    /// What this backend guarantees about concurrent use, in one sentence (this and the two facts below are
    /// constant for the life of an instance: ``BackendRegistry`` asks once): threads, processes, and how (its
    /// locks, its isolation). Reported by the backend because only it knows (SQLite's locking is not
    /// PostgreSQL's). The default says only what `Sendable` promises.
    var concurrencyGuarantee: String { get }

    /// How far a `put` goes before it returns. The default is ``Durability/durable``, which is what ``flush()``'s
    /// default assumes.
    var durability: Durability { get }

    /// Where the backend keeps its data: files and folders under the store root, a server, or memory; what
    /// `strata inspect` shows. The default is empty (nothing reported); the conformance suite asks for at least
    /// one entry.
    var layout: [StorageLayoutEntry] { get }
}

extension StorageBackend {
    /// Does nothing: by default a backend's writes are durable when they return.
    public func flush() throws {}

    /// The default: safe from many threads (`Sendable`); nothing is claimed about several processes.
    public var concurrencyGuarantee: String {
        "any thread (the '\(name)' backend states nothing about several processes)"
    }

    /// The default: ``Durability/durable``.
    public var durability: Durability { .durable }

    /// The default: nothing reported.
    public var layout: [StorageLayoutEntry] { [] }

    /// The default ignores the descriptor and calls ``put(_:for:)``.
    public func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws {
        try put(value, for: key)
    }

    /// Calls ``delete(_:)``: by default a backend keeps no copy of a value's bytes once it is deleted.
    @discardableResult
    public func deleteSecurely(_ key: String) throws -> Bool { try delete(key) }
}

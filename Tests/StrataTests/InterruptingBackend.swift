import Foundation
import Strata

/// A backend that passes every call to another one, except that a put runs `interruption` first, on the putting
/// thread, and fails with its error instead of writing: what a write cut short looks like to the operation making it,
/// with whatever the test does meanwhile (another machine writing the key) done in between.
struct InterruptingBackend: StorageBackend {
    let inner: any StorageBackend
    let interruption: @Sendable (_ key: String) throws -> Never

    var tier: Tier { inner.tier }
    var name: String { inner.name }

    func put(_ value: Data, for key: String) throws { try interruption(key) }
    func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws { try interruption(key) }
    func data(for key: String) throws -> Data? { try inner.data(for: key) }
    func delete(_ key: String) throws -> Bool { try inner.delete(key) }
    func deleteSecurely(_ key: String) throws -> Bool { try inner.deleteSecurely(key) }
    func contains(_ key: String) throws -> Bool { try inner.contains(key) }
    func keys() throws -> [String] { try inner.keys() }
    func metadata(for key: String) throws -> StorageMetadata? { try inner.metadata(for: key) }
    func flush() throws { try inner.flush() }
}

import Foundation
import Strata

/// A backend that passes every call to another one, running `interruption` first at one step — a put's write or a
/// delete's removal — on the thread making it: what the test does there (ending a session, another machine writing
/// the key) happens just before the step. An interruption that throws fails the step instead of letting it run.
struct InterruptingBackend: StorageBackend {
    /// Where the interruption comes.
    enum Step {
        /// Before a put writes the value.
        case put
        /// Before a delete removes it.
        case delete
    }

    let inner: any StorageBackend
    let step: Step
    let interruption: @Sendable (_ key: String) throws -> Void

    var tier: Tier { inner.tier }
    var name: String { inner.name }

    func put(_ value: Data, for key: String) throws {
        if step == .put { try interruption(key) }
        try inner.put(value, for: key)
    }

    func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws {
        if step == .put { try interruption(key) }
        try inner.put(value, for: key, as: descriptor)
    }

    func delete(_ key: String) throws -> Bool {
        if step == .delete { try interruption(key) }
        return try inner.delete(key)
    }

    func deleteSecurely(_ key: String) throws -> Bool {
        if step == .delete { try interruption(key) }
        return try inner.deleteSecurely(key)
    }

    func data(for key: String) throws -> Data? { try inner.data(for: key) }
    func contains(_ key: String) throws -> Bool { try inner.contains(key) }
    func keys() throws -> [String] { try inner.keys() }
    func metadata(for key: String) throws -> StorageMetadata? { try inner.metadata(for: key) }
    func flush() throws { try inner.flush() }
}

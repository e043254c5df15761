import Foundation
import Strata

/// A backend that passes every call to another one, and stops the process forever at one step of a move (after
/// writing a value, or before removing one), so a test can kill it with SIGKILL exactly there.
struct StallingBackend: StorageBackend {
    /// Where to stop.
    enum Step: String {
        /// After a `put` has written the value.
        case afterWrite = "write"
        /// Before a `delete` removes the value.
        case beforeRemove = "remove"
    }

    let inner: any StorageBackend
    let step: Step

    var tier: Tier { inner.tier }
    var name: String { inner.name }

    func put(_ value: Data, for key: String) throws {
        try inner.put(value, for: key)
        if step == .afterWrite { stall() }
    }

    func data(for key: String) throws -> Data? { try inner.data(for: key) }

    func delete(_ key: String) throws -> Bool {
        if step == .beforeRemove { stall() }
        return try inner.delete(key)
    }

    func deleteSecurely(_ key: String) throws -> Bool {
        if step == .beforeRemove { stall() }
        return try inner.deleteSecurely(key)
    }

    func contains(_ key: String) throws -> Bool { try inner.contains(key) }
    func keys() throws -> [String] { try inner.keys() }
    func metadata(for key: String) throws -> StorageMetadata? { try inner.metadata(for: key) }
    func flush() throws { try inner.flush() }

    /// Says `stalled` and waits for the parent's SIGKILL.
    func stall() -> Never {
        say("stalled")
        while true { sleep(60) }
    }
}

import Foundation
import Synchronization

/// What changed in a suite: which keys, and whether another process made the change.
public struct DefaultsChange: Sendable, Hashable {
    /// The keys whose values changed.
    public var keys: Set<String>
    /// Whether the change came from another process (seen in the file) rather than from this store.
    public var isExternal: Bool

    /// A change of `keys`, made here or (`isExternal`) by another process or machine.
    package init(keys: Set<String>, isExternal: Bool) {
        self.keys = keys
        self.isExternal = isExternal
    }
}

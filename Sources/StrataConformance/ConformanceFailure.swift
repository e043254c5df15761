import Foundation

/// A broken promise of the ``/StrataCore/StorageBackend`` contract: which check, and what went wrong.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The id of the check that failed.
    public var check: String
    /// What the backend did wrong.
    public var message: String

    public var description: String { "conformance check '\(check)' failed: \(message)" }
}

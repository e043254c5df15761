import Foundation
import Strata

/// What the engine's own verbs (`strata put`, `get`, `where`, `ls`, `mv`, `rm`) share: they go through `Storage`
/// and its catalog, on every tier, the store opened as an application's `Storage(root:)` opens it (its
/// `strata.conf`; see ``StorageAccess``).
enum StorageCommands {
    static let key = Argument(
        "KEY", "The key, as Storage names it (exports/report.pdf, api/token).", completion: .key(.storage))
    static let allowPlaintextFlag = Flag(
        "--allow-plaintext",
        "Let a credential (a key the secrets tier holds, or put as --kind credential) go to a tier that stores "
            + "plaintext.")

    /// One location as `where` and `ls --long` print it: key, tier, backend, rule, kind, size, modified, type.
    static func line(_ location: StorageLocation) -> String {
        [
            location.key.escapedForDisplay, location.tier.rawValue, location.backend.escapedForDisplay,
            location.ruleID.escapedForDisplay, location.kind?.rawValue ?? "-", "\(location.size)",
            ISO8601DateFormatter().string(from: location.modified), (location.contentType ?? "-").escapedForDisplay,
        ].joined(separator: "\t")
    }

    /// The error for a key no tier holds.
    static func noValue(_ key: String) -> StorageError {
        StorageError(
            .notFound, "no tier holds a value for this key", key: key,
            recovery: "'strata ls' lists the store's keys (check --root)")
    }
}

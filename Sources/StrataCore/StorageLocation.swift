public import Foundation

/// Where a key lives, as the store's catalog records it: the tier and backend that hold the value, the
/// selector rule that sent it there, and what is known of the value.
///
/// ```swift
/// if let location = try storage.location(of: "api/token") {
///     print(location.tier, location.backend, location.ruleID)   // secrets sodium sensitive-to-secrets
/// }
/// ```
public struct StorageLocation: Sendable, Hashable, CustomStringConvertible {
    /// The key, exactly as it was put.
    public var key: String
    /// The tier that holds the value.
    public var tier: Tier
    /// The name of the backend that holds it (for example `plist`, `sqlite`, `postgres`).
    public var backend: String
    /// The id of the selector rule that chose the tier, `move` for an explicit `Storage/move(_:to:)`, or
    /// `found` for a value the catalog found in a tier without having stored it (written through a tier's own API).
    public var ruleID: String
    /// The kind the value was described as, or `nil` when it was found rather than put.
    public var kind: DataKind?
    /// The media type the value was described with, if any.
    public var contentType: String?
    /// The value's size in bytes when it was last written through the catalog.
    public var size: Int
    /// When the value was last written through the catalog.
    public var modified: Date

    /// Creates a location.
    public init(
        key: String, tier: Tier, backend: String, ruleID: String, kind: DataKind?, contentType: String?, size: Int,
        modified: Date
    ) {
        self.key = key
        self.tier = tier
        self.backend = backend
        self.ruleID = ruleID
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.modified = modified
    }

    public var description: String {
        "\(key.shortenedForDisplay()): \(tier.rawValue)/\(backend) by \(ruleID), \(size) bytes"
            + (contentType.map { ", \($0.escapedForDisplay)" } ?? "")
    }

    /// Whether `other` puts the key in the same place by the same decision: tier, backend, rule, kind and content
    /// type (size and modification time aside).
    public func hasPlacement(of other: StorageLocation) -> Bool {
        tier == other.tier && backend == other.backend && ruleID == other.ruleID && kind == other.kind
            && contentType == other.contentType
    }
}

public import Foundation

/// One version the server keeps of an object (ListObjectVersions): a stored body, or a delete marker, the
/// tombstone a versioned bucket leaves where a DELETE without a version id removed the current object.
///
/// An unversioned bucket keeps one version per object, with the version id `null`.
public struct S3ObjectVersion: Sendable, Hashable {
    /// The key, relative to the configuration's prefix.
    public var key: String
    /// The version's id (`null` for an object written while versioning was never enabled, or suspended).
    public var versionID: String
    /// Whether it is the current version: the one a plain GET reads (or, for a delete marker, finds absent).
    public var isLatest: Bool
    /// Whether it is a delete marker rather than a stored body.
    public var isDeleteMarker: Bool
    /// The size in bytes (0 for a delete marker).
    public var size: Int64
    /// When the version was written, when the server said.
    public var lastModified: Date?

    /// Creates a description of a version.
    public init(
        key: String, versionID: String, isLatest: Bool, isDeleteMarker: Bool, size: Int64 = 0,
        lastModified: Date? = nil
    ) {
        self.key = key
        self.versionID = versionID
        self.isLatest = isLatest
        self.isDeleteMarker = isDeleteMarker
        self.size = size
        self.lastModified = lastModified
    }
}

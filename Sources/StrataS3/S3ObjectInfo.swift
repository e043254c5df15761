public import Foundation

/// What S3 says about one object: its key, size, entity tag, modification time, content type and metadata.
public struct S3ObjectInfo: Sendable, Hashable {
    /// The key, relative to the configuration's prefix.
    public var key: String
    /// The size in bytes (for a ranged read, the bytes read).
    public var size: Int64
    /// The entity tag, without quotes: the MD5 of a single upload, `<md5>-<parts>` for a multipart one. Use it with
    /// ``S3Precondition/ifMatch(_:)``.
    public var etag: String
    /// When the object was last written, when the server said.
    public var lastModified: Date?
    /// The content type, when the server said.
    public var contentType: String?
    /// The user metadata (`x-amz-meta-*`), names in lowercase, without the prefix.
    public var metadata: [String: String]
    /// The version the server gave the object (`x-amz-version-id`), when it said: on a bucket with versioning
    /// enabled or suspended. The default is nil.
    public var versionID: String?

    /// Creates a description of an object.
    public init(
        key: String, size: Int64, etag: String, lastModified: Date? = nil, contentType: String? = nil,
        metadata: [String: String] = [:], versionID: String? = nil
    ) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.metadata = metadata
        self.versionID = versionID
    }
}

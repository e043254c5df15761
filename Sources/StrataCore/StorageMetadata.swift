public import Foundation

/// What a backend knows about a stored value without reading it.
public struct StorageMetadata: Sendable, Hashable {
    /// The key.
    public var key: String
    /// The stored value's size in bytes.
    public var size: Int
    /// When the value was last written, if the backend records it.
    public var modificationDate: Date?
    /// The media type, if the backend records one.
    public var contentType: String?

    /// Creates metadata.
    public init(key: String, size: Int, modificationDate: Date? = nil, contentType: String? = nil) {
        self.key = key
        self.size = size
        self.modificationDate = modificationDate
        self.contentType = contentType
    }
}

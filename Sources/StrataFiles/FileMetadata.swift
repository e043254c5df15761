public import Foundation

/// What the store knows about a file.
public struct FileMetadata: Sendable, Hashable {
    /// The file's key (its relative path).
    public var key: String
    /// Its size in bytes.
    public var size: Int
    /// When its content last changed.
    public var modificationDate: Date
    /// When it was last read through a cache area (or by anything that updates access times).
    public var accessDate: Date
    /// Its media type, from the extension, else from its first bytes.
    public var contentType: String
    /// The CRC-32 recorded when it was written, or `nil` when the file system keeps no extended attributes or
    /// the file was put there by something else.
    public var checksum: UInt32?

    /// Creates the metadata of a file, for an engine implementing ``FileEngine/metadata(_:)``.
    public init(
        key: String, size: Int, modificationDate: Date, accessDate: Date, contentType: String, checksum: UInt32?
    ) {
        self.key = key
        self.size = size
        self.modificationDate = modificationDate
        self.accessDate = accessDate
        self.contentType = contentType
        self.checksum = checksum
    }
}

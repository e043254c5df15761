public import Foundation

/// A multipart upload the server holds open (created, neither completed nor aborted): its parts take space until
/// it is aborted.
public struct S3MultipartUpload: Sendable, Hashable {
    /// The key it will create, relative to the configuration's prefix.
    public var key: String
    /// The upload's id.
    public var uploadID: String
    /// When it was created, when the server said.
    public var initiated: Date?

    /// Creates a description of an upload.
    public init(key: String, uploadID: String, initiated: Date? = nil) {
        self.key = key
        self.uploadID = uploadID
        self.initiated = initiated
    }
}

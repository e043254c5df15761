/// One uploaded part of a multipart upload: its number (from 1) and the entity tag the server gave it.
public struct S3CompletedPart: Sendable, Hashable {
    /// The part number, 1 to 10,000.
    public var number: Int
    /// The entity tag of the part, without quotes.
    public var etag: String

    /// Creates a part description.
    public init(number: Int, etag: String) {
        self.number = number
        self.etag = etag
    }
}

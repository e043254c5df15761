/// One page of a listing: the objects, the common prefixes (the "folders" under a delimiter), and the token of
/// the next page.
public struct S3ListPage: Sendable, Hashable {
    /// The objects of the page, in key order, keys relative to the configuration's prefix.
    public var objects: [S3ObjectInfo]
    /// The distinct key prefixes up to the delimiter, relative to the configuration's prefix.
    public var commonPrefixes: [String]
    /// The token that asks for the next page; nil on the last page.
    public var nextContinuationToken: String?

    /// Creates a page.
    public init(objects: [S3ObjectInfo], commonPrefixes: [String], nextContinuationToken: String?) {
        self.objects = objects
        self.commonPrefixes = commonPrefixes
        self.nextContinuationToken = nextContinuationToken
    }
}

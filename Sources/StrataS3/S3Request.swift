/// One S3 request before signing: the method, the object key (nil for a bucket request), the query, the extra
/// headers, the body and where the answer goes.
struct S3Request: Sendable {
    var method: String
    /// The key under the configuration's prefix (the prefix is added when the request is sent); nil for the
    /// bucket itself.
    var key: String?
    var query: [(String, String)] = []
    var headers: [(String, String)] = []
    var body: HTTPBody = .empty
    var sink: HTTPSink = .memory
    /// The bytes of the object to read (a GET's `Range`); nil for all. Sent by ``S3Client/send(_:)``, which moves
    /// its start past what an interrupted attempt already delivered.
    var range: Range<Int64>?
    /// What the request does, for errors (`PUT object`, `list objects`).
    var operation: String
    /// Whether trying again is safe when no answer arrived. True for every S3 operation the client sends: each
    /// either overwrites the same bytes or is read-only; completing a multipart upload twice is handled by its
    /// caller.
    var isIdempotent = true
}

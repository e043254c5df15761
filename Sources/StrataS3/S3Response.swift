/// An S3 answer: the status, the headers (names in lowercase) and the body held in memory (empty when it went to
/// a file), plus the bytes written to the file.
struct S3Response: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var written: Int64
    /// How many times the request was sent.
    var attempts: Int

    /// The entity tag, without its quotes.
    var etag: String? { headers["etag"].map(S3Response.unquoted) }

    static func unquoted(_ tag: String) -> String {
        tag.count >= 2 && tag.hasPrefix("\"") && tag.hasSuffix("\"") ? String(tag.dropFirst().dropLast()) : tag
    }
}

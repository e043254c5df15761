/// Where an interrupted GET goes on: how many bytes earlier attempts delivered, and the entity tag of the first
/// answer, which every later attempt sends as `If-Match` so that the rest comes from the same version (or the read
/// fails with `PreconditionFailed` when the object was replaced meanwhile: a reader never mixes two versions).
struct S3ReadResumption: Sendable {
    /// The bytes already delivered to the sink.
    private(set) var delivered: Int64 = 0
    /// The entity tag of the first answer, as the server sent it.
    private(set) var pinnedTag: String?
    /// The length of the body the first answer announced.
    private var expected: Int64?

    /// Whether every byte the first answer announced has been delivered.
    var isComplete: Bool { expected.map { delivered >= $0 } ?? false }

    /// The `Range` and `If-Match` headers of the next attempt; none before anything was delivered.
    func headers(for range: Range<Int64>?) -> [(String, String)] {
        var headers: [(String, String)] = []
        if let range {
            headers.append(("Range", "bytes=\(range.lowerBound + delivered)-\(range.upperBound - 1)"))
        } else if delivered > 0 {
            headers.append(("Range", "bytes=\(delivered)-"))
        }
        if let pinnedTag { headers.append(("If-Match", pinnedTag)) }
        return headers
    }

    /// Counts what an interrupted attempt with a 2xx answer delivered.
    /// - Returns: Whether the read may go on: false when the answer carried no entity tag to pin it to.
    mutating func record(_ transfer: HTTPTransfer) -> Bool {
        if pinnedTag == nil {
            guard let tag = transfer.headers["etag"], !tag.isEmpty else { return transfer.written == 0 }
            pinnedTag = tag
            expected = transfer.headers["content-length"].flatMap { Int64($0) }
        }
        delivered += transfer.written
        return true
    }
}

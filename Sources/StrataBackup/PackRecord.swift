/// One pack as an index file lists it.
struct PackRecord: Codable, Sendable, Hashable {
    /// The pack's file name in `data/` (64 hex digits).
    var name: String
    /// The pack's size in bytes.
    var size: Int
    /// Its blobs, in file order.
    var blobs: [PackEntry]
}

/// Where one blob sits in a pack: the record of a pack header and of an index file.
struct PackEntry: Codable, Sendable, Hashable {
    /// The blob id (64 hex digits).
    var id: String
    /// The blob's type: 0 for a chunk of file content.
    var type: UInt8
    /// The offset of the blob's nonce in the pack.
    var offset: Int
    /// The sealed length: nonce, ciphertext and tag.
    var length: Int
    /// The plaintext length (after decompression).
    var rawLength: Int
}

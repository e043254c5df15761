import StrataCore

/// The name of a blob: the keyed BLAKE2b-256 of its plaintext (keyed with the repository's id key, so an id says
/// nothing about the content to someone without the key).
struct BlobID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 bytes, as four words in order.
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// Makes an id of exactly 32 bytes.
    init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var values: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() { values[index / 8] = values[index / 8] << 8 | UInt64(byte) }
        words = (values[0], values[1], values[2], values[3])
    }

    /// Reads 64 hex digits.
    init?(hex: String) {
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes)
    }

    /// The 32 bytes.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return out
    }

    /// 64 lowercase hex digits.
    var description: String { Hex.encode(bytes) }

    static func == (lhs: BlobID, rhs: BlobID) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    static func < (lhs: BlobID, rhs: BlobID) -> Bool {
        (lhs.words.0, lhs.words.1, lhs.words.2, lhs.words.3) < (rhs.words.0, rhs.words.1, rhs.words.2, rhs.words.3)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}

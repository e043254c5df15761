import StrataCore

/// The name of a blob: the keyed BLAKE2b-256 of its plaintext (keyed with the repository's id key, so an id says
/// nothing about the content to someone without the key).
struct BlobID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The length of an id in bytes.
    static let size = 32

    /// The 32 bytes, as four big-endian words in order.
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// Makes an id of exactly 32 bytes.
    init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == Self.size else { return nil }
        var values: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var index = 0
        for byte in bytes {
            switch index >> 3 {
            case 0: values.0 = values.0 << 8 | UInt64(byte)
            case 1: values.1 = values.1 << 8 | UInt64(byte)
            case 2: values.2 = values.2 << 8 | UInt64(byte)
            default: values.3 = values.3 << 8 | UInt64(byte)
            }
            index += 1
        }
        words = values
    }

    /// Reads 64 hex digits.
    init?(hex: String) {
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes)
    }

    /// The 32 bytes.
    var bytes: [UInt8] {
        var out = BinaryWriter(capacity: Self.size)
        append(to: &out)
        return out.bytes
    }

    /// Writes the 32 bytes.
    func append(to writer: inout BinaryWriter) {
        // fixed64 writes the low byte first: swapped, the word's high byte comes first.
        writer.fixed64(words.0.byteSwapped)
        writer.fixed64(words.1.byteSwapped)
        writer.fixed64(words.2.byteSwapped)
        writer.fixed64(words.3.byteSwapped)
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

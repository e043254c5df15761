/// Builds the bytes of a binary format of the repository: unsigned LEB128 varints, length-prefixed bytes and
/// UTF-8 strings (the layouts are in `Documentation/Backup.md`).
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first, the high bit set on every byte but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }

    /// A signed number as a zigzag varint (0, -1, 1, -2 … as 0, 1, 2, 3 …).
    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// Eight bytes, little-endian.
    mutating func fixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// A varint length, then the bytes.
    mutating func data(_ value: some Collection<UInt8>) {
        varint(value.count)
        bytes.append(contentsOf: value)
    }

    /// A varint length, then the UTF-8 bytes.
    mutating func string(_ value: String) { data(value.utf8) }

    /// The bytes as they are, no length.
    mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }
}

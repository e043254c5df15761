/// Reads what ``BinaryWriter`` builds, refusing anything that does not fit: each read checks what is left before
/// taking or allocating anything, so a damaged or hostile count or length can neither crash nor make it allocate
/// more than the input's own size.
struct BinaryReader {
    /// Why the input does not decode.
    struct Damage: Error {
        /// The field at fault (`chunks`, `path`, …).
        var part: String
        /// What is wrong with it.
        var reason: String
    }

    private let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8], from position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    mutating func byte(_ part: String) throws(Damage) -> UInt8 {
        guard position < bytes.count else { throw Damage(part: part, reason: "it runs past the end") }
        defer { position += 1 }
        return bytes[position]
    }

    /// An unsigned LEB128 varint of at most 64 bits (10 bytes), in its shortest form.
    mutating func varint(_ part: String) throws(Damage) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte(part)
            guard shift < 63 || next <= 1 else { throw Damage(part: part, reason: "a number past 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 {
                guard next != 0 || shift == 0 else {
                    throw Damage(part: part, reason: "a number not in its shortest form")
                }
                return value
            }
            shift += 7
        }
    }

    /// A varint no larger than `maximum`.
    mutating func integer(_ part: String, maximum: UInt64 = UInt64(Int64.max)) throws(Damage) -> Int64 {
        let value = try varint(part)
        guard value <= maximum else { throw Damage(part: part, reason: "\(value) is larger than \(maximum)") }
        return Int64(value)
    }

    /// A count of items each at least `minimumSize` bytes long, refused when that many could not fit in what is
    /// left: a caller may reserve room for it.
    mutating func count(_ part: String, minimumSize: Int) throws(Damage) -> Int {
        let value = try varint(part)
        guard value <= UInt64(remaining / max(1, minimumSize)) else {
            throw Damage(part: part, reason: "a count of \(value) that the \(remaining) bytes left cannot hold")
        }
        return Int(value)
    }

    /// A zigzag varint.
    mutating func signed(_ part: String) throws(Damage) -> Int64 {
        let value = try varint(part)
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// Eight bytes, little-endian.
    mutating func fixed64(_ part: String) throws(Damage) -> UInt64 {
        var value: UInt64 = 0
        for (index, byte) in try raw(8, part).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        return value
    }

    /// `count` bytes as they are.
    mutating func raw(_ count: Int, _ part: String) throws(Damage) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw Damage(part: part, reason: "it runs past the end") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// A varint length, then that many bytes.
    mutating func data(_ part: String) throws(Damage) -> ArraySlice<UInt8> {
        try raw(try count(part, minimumSize: 1), part)
    }

    /// A varint length, then that many bytes of UTF-8.
    mutating func string(_ part: String) throws(Damage) -> String {
        guard let text = String(validating: try data(part), as: UTF8.self) else {
            throw Damage(part: part, reason: "it is not UTF-8")
        }
        return text
    }
}

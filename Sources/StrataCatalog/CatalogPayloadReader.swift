/// Reads the fields of one catalog record's payload (the layout is documented on ``CatalogRecord``).
import StrataCore

struct CatalogPayloadReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        guard bytes.count - position >= MemoryLayout<T>.size else { return nil }
        defer { position += MemoryLayout<T>.size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: T.self))
    }

    mutating func raw(count: Int) -> UnsafeRawBufferPointer? {
        guard bytes.count - position >= count else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// A `u8 length | UTF-8` string, interned; ``CatalogStrings/none`` for length 255 when `allowsNone`.
    mutating func short(strings: inout CatalogStrings, field: Int, allowsNone: Bool) -> UInt16? {
        guard let count = byte() else { return nil }
        if count == 255 { return allowsNone ? CatalogStrings.none : nil }
        guard let text = raw(count: Int(count)) else { return nil }
        return strings.intern(text, field: field)  // nil: the record is refused as damaged
    }

    mutating func record(strings: inout CatalogStrings) -> CatalogRecord.Borrowed? {
        guard let op = byte(), let keyLength = integer(UInt16.self), let key = raw(count: Int(keyLength)) else {
            return nil
        }
        switch op {
        case 1:
            guard let tier = byte().flatMap(Tier.init(catalogCode:)), let kindCode = byte(),
                let size = integer(Int64.self), let seconds = integer(UInt64.self),
                let backend = short(strings: &strings, field: 0, allowsNone: false),
                let rule = short(strings: &strings, field: 1, allowsNone: false),
                let contentType = short(strings: &strings, field: 2, allowsNone: true)
            else { return nil }
            let kind = kindCode == 255 ? nil : DataKind(catalogCode: kindCode)
            if kindCode != 255, kind == nil { return nil }
            let entry = CatalogEntry(
                tier: tier, kind: kind, backend: backend, rule: rule, contentType: contentType, size: size,
                modified: Double(bitPattern: seconds))
            return .set(key: key, entry: entry)
        case 2:
            return .remove(key: key)
        case 3:
            guard let fromCode = byte(), let to = byte().flatMap(Tier.init(catalogCode:)) else { return nil }
            let from = fromCode == 255 ? nil : Tier(catalogCode: fromCode)
            if fromCode != 255, from == nil { return nil }
            return .intent(key: key, from: from, to: to)
        case 4:
            return .settle(key: key)
        default:
            return nil
        }
    }
}

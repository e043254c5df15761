import StrataSystem

/// One record of the catalog log (`<root>/catalog/log`), and its binary form.
///
/// Framing: `u32 length | u32 CRC-32C of the payload | payload`, little-endian. The payload starts with an
/// operation byte and the key (`u16 length | UTF-8 bytes`):
///
/// | op | name | rest of the payload |
/// |---|---|---|
/// | 1 | `set` | `u8 tier`, `u8 kind` (255: none), `i64 size`, `f64 modified` (seconds since 1970), then backend, rule id and content type as `u8 length | UTF-8` (content type length 255: none) |
/// | 2 | `remove` | nothing |
/// | 3 | `intent` | `u8 from tier` (255: none), `u8 to tier` |
/// | 4 | `settle` | nothing |
///
/// Tier codes: defaults 0, secrets 1, records 2, files 3. Kind codes: preference 0, credential 1, structured 2,
/// relational 3, file 4. Strings are interned in memory (``CatalogStrings``), so a million entries share a few
/// backend names, rule ids and content types.
package enum CatalogRecord: Sendable, Equatable {
    /// The key now lives where `entry` says.
    case set(key: String, entry: CatalogEntry)
    /// The key is gone from every tier.
    case remove(key: String)
    /// A move (or a first put) of `key` into `to` has started; until the matching `settle`, a copy may exist in
    /// both `from` and `to`.
    case intent(key: String, from: Tier?, to: Tier)
    /// The move of `key` is finished: the copy that lost was removed.
    case settle(key: String)

    static let frameHeaderSize = 8
    static let maximumPayload = 1 << 16

    var key: String {
        switch self {
        case .set(let key, _), .remove(let key), .intent(let key, _, _), .settle(let key): key
        }
    }

    /// The framed bytes of the record, appended to `frame`.
    func encode(into frame: inout [UInt8], strings: CatalogStrings) {
        var payload: [UInt8] = []
        func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { payload.append(contentsOf: $0) }
        }
        func short(_ index: UInt16) {
            guard index != CatalogStrings.none else { return payload.append(255) }
            let bytes = Array(strings[index].utf8)
            payload.append(UInt8(bytes.count))
            payload.append(contentsOf: bytes)
        }
        let op: UInt8 =
            switch self {
            case .set: 1
            case .remove: 2
            case .intent: 3
            case .settle: 4
            }
        payload.append(op)
        let key = Array(key.utf8)
        integer(UInt16(key.count))
        payload.append(contentsOf: key)
        switch self {
        case .set(_, let entry):
            payload.append(entry.tier.catalogCode)
            payload.append(entry.kind?.catalogCode ?? 255)
            integer(entry.size)
            integer(entry.modified.bitPattern)
            short(entry.backend)
            short(entry.rule)
            short(entry.contentType)
        case .intent(_, let from, let to):
            payload.append(from?.catalogCode ?? 255)
            payload.append(to.catalogCode)
        case .remove, .settle:
            break
        }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { frame.append(contentsOf: $0) }
        withUnsafeBytes(of: CRC32C.checksum(payload).littleEndian) { frame.append(contentsOf: $0) }
        frame.append(contentsOf: payload)
    }

    /// What decoding one frame found.
    enum Decoded {
        /// A whole, intact record (its key valid as long as the bytes decoded), and the offset just after it.
        case record(Borrowed, next: Int)
        /// The bytes end inside a frame: a writer is still appending it, or one died while appending it.
        case incomplete
        /// The frame is whole but its checksum or contents are wrong.
        case damaged(String)
    }

    /// Decodes the frame at `offset` of `bytes`, interning strings through `strings`.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, strings: inout CatalogStrings) -> Decoded {
        guard bytes.count - offset >= frameHeaderSize else { return .incomplete }
        let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length > 0, length <= maximumPayload else { return .damaged("a record length of \(length) bytes") }
        let start = offset + frameHeaderSize
        guard bytes.count - start >= length else { return .incomplete }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
        guard CRC32C.checksum(payload) == checksum else { return .damaged("a record whose checksum does not match") }
        var reader = CatalogPayloadReader(payload)
        guard let record = reader.record(strings: &strings), reader.isAtEnd else {
            return .damaged("a record whose contents do not parse")
        }
        return .record(record, next: start + length)
    }
}

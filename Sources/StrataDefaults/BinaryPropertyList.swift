public import Foundation
import StrataCore

/// Apple's binary property list format, `bplist00`: a writer fast enough to rewrite a whole suite on every durable
/// set, and a reader that refuses malformed input with a typed error instead of trapping.
///
/// Layout: the 8-byte magic, the objects, a table of object offsets, and a 32-byte trailer giving the offset and
/// reference sizes, the object count, the top object and where the offset table starts.
public enum BinaryPropertyList {
    /// The first eight bytes of every file: `bplist00`.
    public static let magic: [UInt8] = Array("bplist00".utf8)

    /// Seconds between 1970 and 2001, the epoch of plist dates.
    static let referenceDateOffset = 978_307_200.0

    // MARK: Writing

    /// Serializes a value as `bplist00`.
    ///
    /// One pass, no intermediate object graph: objects are numbered in pre-order (a container, then its keys,
    /// then its values' subtrees), so every reference is known from subtree sizes before the children are
    /// written, and objects are written in index order. Values are not deduplicated: a suite's keys are unique
    /// anyway, and speed matters more here than a few bytes. Keys are written with their exact scalars, so twin
    /// spellings (NFC and NFD) stay two keys.
    public static func encode(_ value: PropertyListValue) -> Data {
        let count = objectCount(value)
        let refSize = byteWidth(UInt64(count))
        var writer = Writer(refSize: refSize, capacity: 64 + count * (32 + refSize))
        writer.offsets.reserveCapacity(count)
        writer.out.append(contentsOf: magic)
        writer.write(value, index: 0)
        var out = writer.out
        appendTable(offsets: writer.offsets, refSize: refSize, top: 0, to: &out)  // The top object is the first.
        return Data(out)
    }

    /// Ends a document whose objects are in `out`: the offset table and the trailer.
    static func appendTable(offsets: [Int], refSize: Int, top: Int, to out: inout [UInt8]) {
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize, to: &out) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])  // Five unused bytes and the sort version.
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        appendBigEndian(UInt64(offsets.count), width: 8, to: &out)
        appendBigEndian(UInt64(top), width: 8, to: &out)
        appendBigEndian(UInt64(tableOffset), width: 8, to: &out)
    }

    /// How many objects a value and its descendants take.
    static func objectCount(_ value: PropertyListValue) -> Int {
        // Scalars first, matched without binding their payloads (no retain on the hot path).
        if case .array = value {} else if case .dictionary = value {} else { return 1 }
        switch value {
        case .array(let items): return items.reduce(1) { $0 + objectCount($1) }
        case .dictionary(let items): return items.reduce(1) { $0 + 1 + objectCount($1.value) }
        default: return 1
        }
    }

    struct Writer {
        let refSize: Int
        var out: [UInt8] = []
        var offsets: [Int] = []

        init(refSize: Int, capacity: Int) {
            self.refSize = refSize
            out.reserveCapacity(capacity)
        }

        /// Writes `value`, numbered `index`, and then its descendants, numbered from `index + 1` on.
        mutating func write(_ value: PropertyListValue, index: Int) {
            offsets.append(out.count)
            switch value {
            case .bool(let flag): out.append(flag ? 0x09 : 0x08)
            case .integer(let number): appendInteger(number, to: &out)
            case .real(let number):
                out.append(0x23)
                appendBigEndian(number.bitPattern, width: 8, to: &out)
            case .date(let date):
                out.append(0x33)
                appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8, to: &out)
            case .data(let data):
                appendMarker(0x40, count: data.count, to: &out)
                out.append(contentsOf: data)
            case .string(let string):
                writeString(string)
            case .array(let items):
                appendMarker(0xA0, count: items.count, to: &out)
                var next = index + 1
                for item in items {
                    appendBigEndian(UInt64(next), width: refSize, to: &out)
                    next += objectCount(item)
                }
                next = index + 1
                for item in items {
                    write(item, index: next)
                    next += objectCount(item)
                }
            case .dictionary(let items):
                appendMarker(0xD0, count: items.count, to: &out)
                // Keys take the indexes right after the dictionary; values' subtrees follow.
                for position in 0..<items.count {
                    appendBigEndian(UInt64(index + 1 + position), width: refSize, to: &out)
                }
                var next = index + 1 + items.count
                for item in items.values {
                    appendBigEndian(UInt64(next), width: refSize, to: &out)
                    next += objectCount(item)
                }
                for key in items.keys { offsets.append(out.count); writeString(key.string) }
                next = index + 1 + items.count
                for item in items.values {
                    write(item, index: next)
                    next += objectCount(item)
                }
            }
        }

        mutating func writeString(_ string: String) {
            let wroteASCII = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                var combined: UInt8 = 0
                for byte in bytes { combined |= byte }
                guard combined < 0x80 else { return false }
                appendMarker(0x50, count: bytes.count, to: &out)
                out.append(contentsOf: bytes)
                return true
            }
            if wroteASCII == true { return }
            if string.unicodeScalars.allSatisfy(\.isASCII) {
                appendMarker(0x50, count: string.utf8.count, to: &out)
                out.append(contentsOf: string.utf8)
            } else {
                let units = Array(string.utf16)
                appendMarker(0x60, count: units.count, to: &out)
                for unit in units {
                    out.append(UInt8(unit >> 8))
                    out.append(UInt8(truncatingIfNeeded: unit))
                }
            }
        }
    }

    static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
        if number < 0 {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: number), width: 8, to: &out)
            return
        }
        let width = byteWidth(UInt64(number))
        let exponent: UInt8 = width == 1 ? 0 : width == 2 ? 1 : width <= 4 ? 2 : 3
        out.append(0x10 | exponent)
        appendBigEndian(UInt64(number), width: 1 << Int(exponent), to: &out)
    }

    static func appendMarker(_ kind: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(kind | UInt8(count))
        } else {
            out.append(kind | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    /// How many bytes (1, 2, 4 or 8) it takes to store `value`.
    static func byteWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    @inline(__always)
    static func appendBigEndian(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}

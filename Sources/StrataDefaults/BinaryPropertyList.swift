public import Foundation

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

    /// Serializes a value as `bplist00`. Strings are stored once however often they occur (keys repeat).
    public static func encode(_ value: PropertyListValue) -> Data {
        var flattener = Flattener()
        let top = flattener.add(value)
        let count = flattener.objects.count
        let refSize = byteWidth(UInt64(count))
        var out = [UInt8]()
        out.reserveCapacity(64 + value.encodedSizeEstimate + count * (refSize + 4))
        out.append(contentsOf: magic)
        var offsets = [Int]()
        offsets.reserveCapacity(count)
        for object in flattener.objects {
            offsets.append(out.count)
            write(object, refSize: refSize, into: &out)
        }
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize, to: &out) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])  // Five unused bytes and the sort version.
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        appendBigEndian(UInt64(count), width: 8, to: &out)
        appendBigEndian(UInt64(top), width: 8, to: &out)
        appendBigEndian(UInt64(tableOffset), width: 8, to: &out)
        return Data(out)
    }

    /// An object of the flattened graph: a scalar, or a container holding the indexes of its children.
    enum Object {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    struct Flattener {
        var objects: [Object] = []
        var strings: [String: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            switch value {
            case .string(let string):
                if let index = strings[string] { return index }
                objects.append(.scalar(value))
                strings[string] = objects.count - 1
                return objects.count - 1
            case .array(let items):
                let index = objects.count
                objects.append(.array([]))
                let children = items.map { add($0) }
                objects[index] = .array(children)
                return index
            case .dictionary(let items):
                let index = objects.count
                objects.append(.dictionary(keys: [], values: []))
                // Sorted keys: the same suite always serializes to the same bytes.
                let sorted = items.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                objects[index] = .dictionary(keys: keys, values: values)
                return index
            default:
                objects.append(.scalar(value))
                return objects.count - 1
            }
        }
    }

    static func write(_ object: Object, refSize: Int, into out: inout [UInt8]) {
        switch object {
        case .array(let children):
            appendMarker(0xA0, count: children.count, to: &out)
            for child in children { appendBigEndian(UInt64(child), width: refSize, to: &out) }
        case .dictionary(let keys, let values):
            appendMarker(0xD0, count: keys.count, to: &out)
            for key in keys { appendBigEndian(UInt64(key), width: refSize, to: &out) }
            for value in values { appendBigEndian(UInt64(value), width: refSize, to: &out) }
        case .scalar(let value):
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
                let utf8 = string.utf8
                let isASCII = utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } }
                    ?? string.unicodeScalars.allSatisfy(\.isASCII)
                if isASCII {
                    appendMarker(0x50, count: utf8.count, to: &out)
                    out.append(contentsOf: utf8)
                } else {
                    let units = Array(string.utf16)
                    appendMarker(0x60, count: units.count, to: &out)
                    for unit in units {
                        out.append(UInt8(unit >> 8))
                        out.append(UInt8(unit & 0xFF))
                    }
                }
            case .array, .dictionary:
                preconditionFailure("containers are flattened before writing")
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

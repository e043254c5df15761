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
        var writer = Writer(refSize: refSize, objects: count, capacity: 64 + count * (24 + refSize))
        writer.out.append(magic)
        writer.write(value, index: 0)
        return writer.finish(top: 0)  // The top object is the first.
    }

    /// Serializes a suite's top-level dictionary as ``encode(_:)`` does, noting where each key's value lies when it is
    /// a scalar, so that a later set can patch the bytes (``EncodedSuite``).
    static func encodeSuite(_ dictionary: [ExactString: PropertyListValue]) -> EncodedSuite {
        let value = PropertyListValue.dictionary(dictionary)
        let count = objectCount(value)
        let refSize = byteWidth(UInt64(count))
        var writer = Writer(refSize: refSize, objects: count, capacity: 64 + count * (24 + refSize))
        writer.notesTopLevelValues = true
        writer.topLevelKeys.reserveCapacity(dictionary.count)
        writer.topLevelValueRanges.reserveCapacity(dictionary.count)
        writer.out.append(magic)
        writer.write(value, index: 0)
        let keys = writer.topLevelKeys
        let ranges = writer.topLevelValueRanges
        return EncodedSuite(bytes: writer.finish(top: 0), keys: keys, valueRanges: ranges)
    }

    /// The bytes of a scalar value's object, or `nil` for an array or a dictionary.
    static func encodedScalar(_ value: PropertyListValue) -> [UInt8]? {
        if isContainer(value) { return nil }
        var writer = Writer(refSize: 1, objects: 0, capacity: 16)
        writer.writeScalar(value)
        return writer.out.bytes
    }

    /// How many objects a value and its descendants take.
    @inline(__always)
    static func objectCount(_ value: PropertyListValue) -> Int {
        // Scalars first, inline and matched without binding their payloads (no call, no retain on the hot path).
        isContainer(value) ? containerObjectCount(value) : 1
    }

    /// ``objectCount(_:)`` of an array or a dictionary, counted with a stack of its own (no recursion).
    static func containerObjectCount(_ value: PropertyListValue) -> Int {
        var count = 0
        var pending = [value]
        while let next = pending.popLast() {
            count += 1
            switch next {
            case .array(let items):
                for item in items { isContainer(item) ? pending.append(item) : (count += 1) }
            case .dictionary(let items):
                count += items.count
                for item in items.values { isContainer(item) ? pending.append(item) : (count += 1) }
            default:
                break
            }
        }
        return count
    }

    @inline(__always)
    static func isContainer(_ value: PropertyListValue) -> Bool {
        if case .array = value { return true }
        if case .dictionary = value { return true }
        return false
    }

    /// Writes the objects of one document into a ``Buffer``, recording where each starts.
    struct Writer: ~Copyable {
        let refSize: Int
        var out: Buffer
        /// Where each object starts, by its index: objects may be written in any order (a dictionary's keys and
        /// values are written pair by pair), the table puts them back in index order.
        var offsets: [Int]
        /// Whether to note, for the top-level dictionary, each key and where its value's object lies (an empty
        /// range for a container): ``encodeSuite(_:)``.
        var notesTopLevelValues = false
        var topLevelKeys: [ExactString] = []
        var topLevelValueRanges: [Range<Int>] = []

        init(refSize: Int, objects: Int, capacity: Int) {
            self.refSize = refSize
            out = Buffer(capacity: capacity)
            offsets = [Int](repeating: 0, count: objects)
        }

        /// Ends the document: the offset table and the trailer. The top object is `top`.
        consuming func finish(top: Int) -> Data {
            let tableOffset = out.count
            let offsetSize = byteWidth(UInt64(tableOffset))
            out.reserve(offsets.count * offsetSize + 32)
            for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
            out.append([0, 0, 0, 0, 0, 0])  // Five unused bytes and the sort version.
            out.append(UInt8(offsetSize))
            out.append(UInt8(refSize))
            out.appendBigEndian(UInt64(offsets.count), width: 8)
            out.appendBigEndian(UInt64(top), width: 8)
            out.appendBigEndian(UInt64(tableOffset), width: 8)
            return out.data()
        }

        /// Writes `value`, numbered `index`, and then its descendants, numbered from `index + 1` on (pre-order): a
        /// stack of the containers still to write instead of recursion, so no depth overflows the thread's stack.
        /// Objects may be written in any order (the offset table puts them back in index order): a container's
        /// scalars, keys included, are written right after it, its containers later.
        mutating func write(_ value: PropertyListValue, index: Int) {
            var pending = [(value, index)]
            while let (value, index) = pending.popLast() { write(value, index: index, then: &pending) }
        }

        /// A container's child numbered `index`: a scalar is written now, a container pushed on `pending` to be
        /// written later. `index` moves past the child and its descendants.
        mutating func place(_ item: PropertyListValue, at index: inout Int, pending: inout [(PropertyListValue, Int)]) {
            if isContainer(item) {
                pending.append((item, index))
                index += containerObjectCount(item)
            } else {
                offsets[index] = out.count
                writeScalar(item)
                index += 1
            }
        }

        /// Writes `value` itself, numbered `index`, and a container's scalars; its containers are pushed on
        /// `pending`, the first on top.
        mutating func write(_ value: PropertyListValue, index: Int, then pending: inout [(PropertyListValue, Int)]) {
            offsets[index] = out.count
            switch value {
            case .array(let items):
                appendMarker(0xA0, count: items.count)
                var next = index + 1
                out.reserve(items.count * refSize)
                for item in items {
                    out.appendBigEndian(UInt64(next), width: refSize)
                    next += objectCount(item)
                }
                let first = pending.count
                next = index + 1
                for item in items { place(item, at: &next, pending: &pending) }
                pending[first...].reverse()
            case .dictionary(let items):
                appendMarker(0xD0, count: items.count)
                // Keys take the indexes right after the dictionary; values' subtrees follow.
                out.reserve(2 * items.count * refSize)
                for position in 0..<items.count {
                    out.appendBigEndian(UInt64(index + 1 + position), width: refSize)
                }
                var next = index + 1 + items.count
                for item in items.values {
                    out.appendBigEndian(UInt64(next), width: refSize)
                    next += objectCount(item)
                }
                // Each key, then its value: the same order as the references above (one iteration of the same
                // dictionary), each object at its own index.
                let first = pending.count
                var keyIndex = index + 1
                next = index + 1 + items.count
                let notes = notesTopLevelValues && index == 0
                for (key, item) in items {
                    offsets[keyIndex] = out.count
                    writeString(key.string)
                    keyIndex += 1
                    let start = out.count
                    place(item, at: &next, pending: &pending)
                    if notes {
                        topLevelKeys.append(key)
                        topLevelValueRanges.append(start..<out.count)
                    }
                }
                pending[first...].reverse()
            default:
                writeScalar(value)
            }
        }

        /// Writes a value that is not an array or a dictionary.
        @inline(__always)
        mutating func writeScalar(_ value: PropertyListValue) {
            switch value {
            case .bool(let flag): out.append(flag ? 0x09 : 0x08)
            case .integer(let number): appendInteger(number)
            case .real(let number):
                out.append(0x23)
                out.appendBigEndian(number.bitPattern, width: 8)
            case .date(let date):
                out.append(0x33)
                out.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8)
            case .data(let data):
                appendMarker(0x40, count: data.count)
                data.withUnsafeBytes { out.append($0) }
            case .string(let string):
                writeString(string)
            case .array, .dictionary:
                break  // Written by `write(_:index:then:)`.
            }
        }

        mutating func writeString(_ string: String) {
            var utf8 = string.utf8
            let wroteASCII = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard Self.isASCII(UnsafeRawBufferPointer(bytes)) else { return false }
                appendMarker(0x50, count: bytes.count)
                out.append(UnsafeRawBufferPointer(bytes))
                return true
            }
            if wroteASCII == true { return }
            if wroteASCII == nil, string.unicodeScalars.allSatisfy(\.isASCII) {
                utf8 = string.utf8
                appendMarker(0x50, count: utf8.count)
                out.append(utf8)
            } else {
                let units = Array(string.utf16)
                appendMarker(0x60, count: units.count)
                out.reserve(2 * units.count)
                for unit in units { out.appendBigEndian(UInt64(unit), width: 2) }
            }
        }

        /// Whether every byte is below 0x80, eight at a time.
        static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
            var combined: UInt64 = 0
            var position = 0
            while position + 8 <= bytes.count {
                combined |= bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                position += 8
            }
            while position < bytes.count {
                combined |= UInt64(bytes[position])
                position += 1
            }
            return combined & 0x8080_8080_8080_8080 == 0
        }

        @inline(__always)
        mutating func appendInteger(_ number: Int64) {
            if number < 0 {
                out.append(0x13)
                out.appendBigEndian(UInt64(bitPattern: number), width: 8)
                return
            }
            let width = byteWidth(UInt64(number))
            let exponent: UInt8 = width == 1 ? 0 : width == 2 ? 1 : width <= 4 ? 2 : 3
            out.append(0x10 | exponent)
            out.appendBigEndian(UInt64(number), width: 1 << Int(exponent))
        }

        @inline(__always)
        mutating func appendMarker(_ kind: UInt8, count: Int) {
            if count < 15 {
                out.append(kind | UInt8(count))
            } else {
                out.append(kind | 0x0F)
                appendInteger(Int64(count))
            }
        }
    }

    /// How many bytes (1, 2, 4 or 8) it takes to store `value`.
    static func byteWidth(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }
}

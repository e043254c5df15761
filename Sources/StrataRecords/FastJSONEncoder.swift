import Foundation
import StrataCore

/// A `Codable` encoder that writes compact RFC 8259 JSON straight into a byte buffer, several times faster than
/// building a tree first.
///
/// Codable has no "container finished" call, so containers are closed lazily: when a value's `encode(to:)`
/// returns, everything it opened is closed, and writing to a container first closes the deeper ones (the
/// sequential use that synthesized conformances make). A container written to after its parent moved on
/// (interleaved use) throws `EncodingError`, and ``RecordCoder`` then falls back to Foundation's encoder.
/// `Data` is written as base64 and `URL` as its absolute string, as Foundation's `JSONEncoder` does.
enum FastJSONEncoder {
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = StreamingJSONEncoder()
        encoder.out.reserveCapacity(256)
        do {
            try encoder.encodeTopLevel(value)
            return encoder.out
        } catch StreamingJSONEncoder.Interleaved.detected {
            let fallback = JSONEncoder()
            fallback.outputFormatting = [.sortedKeys]
            return [UInt8](try fallback.encode(value))
        }
    }
}

final class StreamingJSONEncoder: Encoder {
    enum Interleaved: Error { case detected }

    struct Frame {
        var isObject: Bool
        var count: Int
        var generation: Int
        /// Where this object's member names start in `names`.
        var namesStart: Int
    }

    // The encoder's state is touched only by the thread running `FastJSONEncoder.encode`, and no access to one of
    // these properties ever overlaps another (none is passed `inout` to code that reaches the encoder): the
    // run-time exclusivity checks, a third of the encoding time, are left out.
    @exclusivity(unchecked) var out: [UInt8] = []
    @exclusivity(unchecked) var stack: [Frame] = []
    /// Where each member name of the open objects was written in `out` (one string always escapes to the same
    /// bytes), innermost object last: one buffer for every frame, so encoding allocates nothing per object.
    @exclusivity(unchecked) var names: [Range<Int>] = []
    @exclusivity(unchecked) var generation = 0
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        let before = out.count
        try encodeValue(value)
        if out.count == before { out += [0x7B, 0x7D] }  // A value that encoded nothing is `{}`.
    }

    // MARK: Frames

    func open(object: Bool) -> (index: Int, generation: Int) {
        out.append(object ? 0x7B : 0x5B)
        generation += 1
        stack.append(Frame(isObject: object, count: 0, generation: generation, namesStart: names.count))
        return (stack.count - 1, generation)
    }

    func closeFrames(above depth: Int) throws {
        while stack.count > depth {
            let frame = stack.removeLast()
            if names.count - frame.namesStart > 1 { try refuseRepeatedNames(from: frame.namesStart) }
            names.removeLast(names.count - frame.namesStart)
            out.append(frame.isObject ? 0x7D : 0x5D)
        }
    }

    /// Makes frame `index` the innermost again (closing finished deeper ones) and writes its separator.
    func prepareWrite(frame index: Int, generation: Int) throws {
        guard index < stack.count, stack[index].generation == generation else { throw Interleaved.detected }
        try closeFrames(above: index + 1)
        if stack[index].count > 0 { out.append(0x2C) }
        stack[index].count += 1
    }

    func writeKey(_ key: some CodingKey, frame index: Int) {
        let start = out.count
        JSONWriter.appendString(key.stringValue, to: &out)
        names.append(start..<out.count)
        out.append(0x3A)
    }

    /// An `encode(to:)` that writes one key twice would store an object whose name appears twice, which the
    /// decoder refuses: refuse it here, before anything is stored.
    func refuseRepeatedNames(from first: Int) throws {
        let names = self.names
        let repeated = out.withUnsafeBytes { bytes in
            DuplicateMemberNames.firstRepeat(
                count: names.count - first, length: { names[first + $0].count },
                equal: {
                    memcmp(
                        bytes.baseAddress! + names[first + $0].lowerBound,
                        bytes.baseAddress! + names[first + $1].lowerBound, names[first + $0].count) == 0
                },
                name: {
                    ExactString(
                        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[names[first + $0]]), as: UTF8.self))
                })
        }
        guard let repeated else { return }
        let name = String(decoding: out[names[first + repeated]], as: UTF8.self)
        throw EncodingError.invalidValue(
            name,
            EncodingError.Context(
                codingPath: codingPath, debugDescription: "the key \(name) is encoded twice in one object"))
    }

    /// Encodes a nested value, closing whatever it opens, and writing `{}` if it wrote nothing.
    func encodeValue<T: Encodable>(_ value: T) throws {
        // Metadata comparisons, not dynamic casts: this runs for every nested value and array element.
        if T.self == String.self { return writeString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return writeInteger(unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self { return out += unsafeBitCast(value, to: Bool.self) ? Self.trueBytes : Self.falseBytes }
        if T.self == Double.self {
            let number = unsafeBitCast(value, to: Double.self)
            try checkFinite(number)
            return writeDouble(number)
        }
        if T.self == Date.self {
            return writeDouble(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate)
        }
        if T.self == Data.self { return writeString((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return writeString((value as! URL).absoluteString) }
        if T.self == Decimal.self { return out += Array((value as! Decimal).description.utf8) }
        let depth = stack.count
        let before = out.count
        try value.encode(to: self)
        try closeFrames(above: depth)
        if out.count == before { out += [0x7B, 0x7D] }
    }

    func writeArray<Element>(_ elements: [Element], _ write: (Element) -> Void) {
        out.append(0x5B)
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(0x2C) }
            write(element)
        }
        out.append(0x5D)
    }

    static let trueBytes = Array("true".utf8)
    static let falseBytes = Array("false".utf8)
    static let nullBytes = Array("null".utf8)

    func writeString(_ text: String) { JSONWriter.appendString(text, to: &out) }

    func writeDouble(_ number: Double) {
        JSONWriter.appendDouble(number, to: &out)
    }

    func checkFinite(_ number: Double) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number, EncodingError.Context(codingPath: codingPath, debugDescription: "JSON cannot hold \(number)"))
        }
    }

    /// Writes decimal digits without making a `String`.
    func writeInteger<I: BinaryInteger>(_ number: I) {
        if number == 0 { return out.append(0x30) }
        var magnitude = number.magnitude
        if number < 0 { out.append(0x2D) }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (index, generation) = open(object: true)
        return KeyedEncodingContainer(
            KeyedContainer<Key>(encoder: self, frame: index, generation: generation, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (index, generation) = open(object: false)
        return UnkeyedContainer(encoder: self, frame: index, generation: generation, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(encoder: self, codingPath: codingPath)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: StreamingJSONEncoder
        let frame: Int
        let generation: Int
        var codingPath: [any CodingKey]

        func begin(_ key: Key) throws {
            try encoder.prepareWrite(frame: frame, generation: generation)
            encoder.writeKey(key, frame: frame)
        }

        mutating func encodeNil(forKey key: Key) throws {
            try begin(key)
            encoder.out += StreamingJSONEncoder.nullBytes
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            try begin(key)
            encoder.out += value ? StreamingJSONEncoder.trueBytes : StreamingJSONEncoder.falseBytes
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            try begin(key)
            encoder.writeString(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            try encoder.checkFinite(value)
            try begin(key)
            encoder.writeDouble(value)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            try begin(key)
            encoder.writeInteger(value)
        }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            try begin(key)
            encoder.writeInteger(value)
        }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(UInt(value), forKey: key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try begin(key)
            try encoder.encodeValue(value)
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            // Absent optionals are left out, as Foundation's encoder does.
            if let value { try encode(value, forKey: key) }
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            // Errors cannot be thrown here; an interleaved use is caught at the nested container's first write.
            try? begin(key)
            return encoder.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            try? begin(key)
            return encoder.unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            try? encoder.prepareWrite(frame: frame, generation: generation)
            encoder.writeString("super")
            encoder.out.append(0x3A)
            return encoder
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            try? begin(key)
            return encoder
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: StreamingJSONEncoder
        let frame: Int
        let generation: Int
        var codingPath: [any CodingKey]
        var count = 0

        mutating func begin() throws {
            try encoder.prepareWrite(frame: frame, generation: generation)
            count += 1
        }

        mutating func encodeNil() throws {
            try begin()
            encoder.out += StreamingJSONEncoder.nullBytes
        }
        mutating func encode(_ value: Bool) throws {
            try begin()
            encoder.out += value ? StreamingJSONEncoder.trueBytes : StreamingJSONEncoder.falseBytes
        }
        mutating func encode(_ value: String) throws {
            try begin()
            encoder.writeString(value)
        }
        mutating func encode(_ value: Double) throws {
            try encoder.checkFinite(value)
            try begin()
            encoder.writeDouble(value)
        }
        mutating func encode(_ value: Int) throws {
            try begin()
            encoder.writeInteger(value)
        }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try begin()
            try encoder.encodeValue(value)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            try? begin()
            return encoder.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            try? begin()
            return encoder.unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            try? begin()
            return encoder
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let encoder: StreamingJSONEncoder
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { encoder.out += StreamingJSONEncoder.nullBytes }
        mutating func encode(_ value: Bool) throws {
            encoder.out += value ? StreamingJSONEncoder.trueBytes : StreamingJSONEncoder.falseBytes
        }
        mutating func encode(_ value: String) throws { encoder.writeString(value) }
        mutating func encode(_ value: Double) throws {
            try encoder.checkFinite(value)
            encoder.writeDouble(value)
        }
        mutating func encode(_ value: Float) throws { try encode(Double(value)) }
        mutating func encode(_ value: Int) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: Int8) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: Int16) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: Int32) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: Int64) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: UInt) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: UInt8) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: UInt16) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: UInt32) throws { encoder.writeInteger(value) }
        mutating func encode(_ value: UInt64) throws { encoder.writeInteger(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
    }
}

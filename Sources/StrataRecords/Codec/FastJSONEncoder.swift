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
        try StreamingJSONEncoder().encode(value) { [UInt8]($0) }
    }
}

/// The encoder of ``FastJSONEncoder``. One instance can encode many records, one after the other, into the same
/// byte buffer (a transaction's inserts reuse their transaction's encoder): after the first few records, encoding
/// allocates nothing but the box Codable puts around each keyed container.
final class StreamingJSONEncoder: Encoder {
    enum Interleaved: Error { case detected }

    struct Frame {
        var isObject: Bool
        var count: Int
        var generation: Int
        /// Where this object's member names start in `names`.
        var namesStart: Int
    }

    /// Where a member name was written in the output, between its quotes.
    struct NameSpan {
        var start: Int
        var count: Int
    }

    // The encoder's state is touched only by the thread running `encode`, and no access to one of these
    // properties ever overlaps another (none is passed `inout` to code that reaches the encoder): the run-time
    // exclusivity checks, a third of the encoding time, are left out.
    /// The output: `count` bytes written in storage of `capacity`.
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var capacity: Int
    /// The open containers, innermost last.
    @exclusivity(unchecked) var stack = ScratchStack<Frame>(capacity: 8)
    /// Where each member name of the open objects was written in the output (one string always escapes to the
    /// same bytes), innermost object last: one buffer for every frame, so encoding allocates nothing per object.
    @exclusivity(unchecked) var names = ScratchStack<NameSpan>(capacity: 32)
    @exclusivity(unchecked) var generation = 0
    /// Whether a value nested too deep was refused: kept, since a nested container's `begin` cannot throw.
    @exclusivity(unchecked) var refusedTooDeep = false
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init() {
        capacity = 512
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        stack.deallocate()
        names.deallocate()
    }

    /// Encodes `value` and lends its JSON to `body`; the bytes stay valid only during `body`. A value whose
    /// `encode(to:)` uses its containers out of order is encoded by Foundation's encoder instead.
    func encode<T: Encodable, R>(_ value: T, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        count = 0
        stack.truncate(to: 0)
        names.truncate(to: 0)
        refusedTooDeep = false
        if !codingPath.isEmpty { codingPath = [] }
        do {
            try encodeValue(value)
            if refusedTooDeep { throw tooDeep() }
        } catch Interleaved.detected {
            let fallback = JSONEncoder()
            fallback.outputFormatting = [.sortedKeys]
            return try fallback.encode(value).withUnsafeBytes(body)
        }
        return try body(UnsafeRawBufferPointer(start: buffer, count: count))
    }

    // MARK: Output

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        storage.update(from: buffer, count: count)
        buffer.deallocate()
        buffer = storage
        capacity = larger
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    private func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    private func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The bytes of the member name written at `span`.
    private func written(_ span: NameSpan) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffer + span.start, count: span.count)
    }

    /// Writes `text` as a JSON string: its bytes copied whole when nothing in them needs escaping (nearly every
    /// string, checked eight bytes at a time), else escaped byte by byte.
    func writeString(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { writeString(UnsafeRawBufferPointer($0)) }
        if written == nil {
            var copy = text
            copy.withUTF8 { writeString(UnsafeRawBufferPointer($0)) }
        }
    }

    private func writeString(_ bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        // The quotes, and the eight bytes the last word of the copy may store past the string's end.
        reserve(length + 10)
        let out = UnsafeMutableRawPointer(buffer + count)
        out.storeBytes(of: 0x22, as: UInt8.self)
        guard let source = bytes.baseAddress, length > 0 else {
            out.storeBytes(of: 0x22, toByteOffset: 1, as: UInt8.self)
            count += 2
            return
        }
        if Self.copyUnescaped(from: source, count: length, to: out + 1) {
            out.storeBytes(of: 0x22, toByteOffset: length + 1, as: UInt8.self)
            count += length + 2
            return
        }
        // Rare: something to escape. The copy is written over.
        count += 1
        var escaped: [UInt8] = []
        JSONWriter.appendEscaped(bytes, to: &escaped)
        escaped.withUnsafeBytes { append($0) }
        append(0x22)
    }

    /// Copies `length` bytes (at least one) from `source` to `target` a word of eight at a time, storing up to
    /// seven bytes of padding past `target + length`, and tells whether none of them is a quote, a backslash or a
    /// control character (nearly every string: then the copy is the string's JSON text as it stands). No byte
    /// outside the source is read, and no call is made to copy a few bytes.
    @inline(__always)
    static func copyUnescaped(from source: UnsafeRawPointer, count length: Int, to target: UnsafeMutableRawPointer)
        -> Bool
    {
        var special: UInt64 = 0
        if length >= 8 {
            var offset = 0
            while offset + 8 <= length {
                let word = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                special |= JSONTape.specialBytes(UInt64(littleEndian: word))
                target.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if offset < length {
                // The last eight bytes, overlapping some already copied.
                let word = source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                special |= JSONTape.specialBytes(UInt64(littleEndian: word))
                target.storeBytes(of: word, toByteOffset: length - 8, as: UInt64.self)
            }
            return special == 0
        }
        // One to seven bytes, gathered into one word (first byte lowest) and padded with spaces.
        let word = ByteSpans.partialWord(source, count: length) | (0x2020_2020_2020_2020 << (8 * UInt64(length)))
        target.storeBytes(of: word.littleEndian, as: UInt64.self)
        return JSONTape.specialBytes(word) == 0
    }

    func writeDouble(_ number: Double) {
        if number == number.rounded(.towardZero), abs(number) < 1e15 { return writeInteger(Int64(number)) }
        var out: [UInt8] = []
        JSONWriter.appendDouble(number, to: &out)
        out.withUnsafeBytes { append($0) }
    }

    func checkFinite(_ number: Double) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number, EncodingError.Context(codingPath: codingPath, debugDescription: "JSON cannot hold \(number)"))
        }
    }

    /// Writes decimal digits in place, without making a `String`.
    func writeInteger<I: BinaryInteger>(_ number: I) {
        var magnitude = UInt64(truncatingIfNeeded: number.magnitude)
        reserve(21)
        if number < 0 {
            buffer[count] = 0x2D
            count += 1
        }
        var digits = 1
        var scale: UInt64 = 10
        while digits < 20, magnitude >= scale {
            digits += 1
            scale = scale &* 10
        }
        var position = count + digits
        count = position
        repeat {
            position -= 1
            buffer[position] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
            magnitude /= 10
        } while position > count - digits
    }

    func writeBool(_ value: Bool) { value ? append("true") : append("false") }

    func writeNull() { append("null") }

    // MARK: Frames

    func open(object: Bool) -> (index: Int, generation: Int) {
        append(object ? 0x7B : 0x5B)
        generation += 1
        stack.append(Frame(isObject: object, count: 0, generation: generation, namesStart: names.count))
        return (stack.count - 1, generation)
    }

    func closeFrames(above depth: Int) throws {
        while stack.count > depth {
            let frame = stack.removeLast()
            if names.count - frame.namesStart > 1 { try refuseRepeatedNames(from: frame.namesStart) }
            names.truncate(to: frame.namesStart)
            append(frame.isObject ? 0x7D : 0x5D)
        }
    }

    /// Makes frame `index` the innermost again (closing finished deeper ones) and writes its separator. The value
    /// written next lies at depth `index + 1`: one as deep as the readers refuse is refused here, before anything
    /// is stored.
    @inline(__always)
    func prepareWrite(frame index: Int, generation: Int) throws {
        guard index < stack.count, stack[index].generation == generation else { throw Interleaved.detected }
        if index + 1 >= JSONParser.maximumDepth { throw tooDeep() }
        if stack.count > index + 1 { try closeFrames(above: index + 1) }
        if stack[index].count > 0 { append(0x2C) }
        stack[index].count += 1
    }

    func writeKey(_ key: some CodingKey) {
        let start = count + 1
        writeString(key.stringValue)
        names.append(NameSpan(start: start, count: count - 1 - start))
        append(0x3A)
    }

    /// An `encode(to:)` that writes one key twice would store an object whose name appears twice, which the
    /// decoder refuses: refuse it here, before anything is stored. Names are compared by their exact bytes.
    func refuseRepeatedNames(from first: Int) throws {
        let count = names.count - first
        if count <= DuplicateMemberNames.pairwiseLimit {
            let names = names.base + first
            if !DuplicateMemberNames.hasRepeat(in: buffer, count: count, range: { (names[$0].start, names[$0].count) })
            {
                return
            }
        }
        let repeated = DuplicateMemberNames.firstRepeat(
            count: names.count - first, length: { self.names[first + $0].count },
            equal: { one, other in
                let one = self.written(self.names[first + one])
                return memcmp(one.baseAddress!, self.written(self.names[first + other]).baseAddress!, one.count) == 0
            },
            name: { ExactString(String(decoding: self.written(self.names[first + $0]), as: UTF8.self)) })
        guard let repeated else { return }
        let name = String(decoding: written(names[first + repeated]), as: UTF8.self)
        throw EncodingError.invalidValue(
            name,
            EncodingError.Context(
                codingPath: codingPath, debugDescription: "the key \(name) is encoded twice in one object"))
    }

    /// A value nested as deep as the readers refuse (``JSONParser/maximumDepth``): stored, it could not be read.
    func tooDeep() -> EncodingError {
        refusedTooDeep = true
        return EncodingError.invalidValue(
            JSONParser.maximumDepth,
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "the value nests \(JSONParser.maximumDepth) levels deep or more, which no record may")
        )
    }

    /// Encodes a nested value (at depth `stack.count`), closing whatever it opens, and writing `{}` if it wrote
    /// nothing.
    func encodeValue<T: Encodable>(_ value: T) throws {
        // Metadata comparisons, not dynamic casts: this runs for every nested value and array element.
        if T.self == String.self { return writeString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return writeInteger(unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self { return writeBool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self {
            let number = unsafeBitCast(value, to: Double.self)
            try checkFinite(number)
            return writeDouble(number)
        }
        if T.self == Date.self {
            return writeDouble(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate)
        }
        // Arrays of scalars without the unkeyed-container machinery: common in records (tags, ids).
        if T.self == [String].self { return try writeArray(unsafeBitCast(value, to: [String].self), writeString) }
        if T.self == [Int].self { return try writeArray(unsafeBitCast(value, to: [Int].self), writeInteger) }
        if T.self == [Double].self {
            let numbers = unsafeBitCast(value, to: [Double].self)
            for number in numbers { try checkFinite(number) }
            return try writeArray(numbers, writeDouble)
        }
        if T.self == Data.self { return writeString((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return writeString((value as! URL).absoluteString) }
        if T.self == Decimal.self { return Array((value as! Decimal).description.utf8).withUnsafeBytes { append($0) } }
        let depth = stack.count
        let before = count
        try value.encode(to: self)
        try closeFrames(above: depth)
        if count == before { append("{}") }
    }

    func writeArray<Element>(_ elements: [Element], _ write: (Element) -> Void) throws {
        if !elements.isEmpty, stack.count + 1 >= JSONParser.maximumDepth { throw tooDeep() }
        append(0x5B)
        for (index, element) in elements.enumerated() {
            if index > 0 { append(0x2C) }
            write(element)
        }
        append(0x5D)
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (index, generation) = open(object: true)
        return KeyedEncodingContainer(
            KeyedContainer<Key>(encoder: self, frame: index, generation: generation))
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
        var codingPath: [any CodingKey] { encoder.codingPath }

        func begin(_ key: Key) throws {
            try encoder.prepareWrite(frame: frame, generation: generation)
            encoder.writeKey(key)
        }

        mutating func encodeNil(forKey key: Key) throws {
            try begin(key)
            encoder.writeNull()
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            try begin(key)
            encoder.writeBool(value)
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
            encoder.append(0x3A)
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
            encoder.writeNull()
        }
        mutating func encode(_ value: Bool) throws {
            try begin()
            encoder.writeBool(value)
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

        mutating func encodeNil() throws { encoder.writeNull() }
        mutating func encode(_ value: Bool) throws { encoder.writeBool(value) }
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

import Foundation
import StrataCore

/// A `Codable` decoder that reads JSON bytes in place: no tree is built. One validating pass notes where every
/// value is (``JSONTape``); containers find their members there, and values are parsed only when asked for,
/// straight from the bytes. It matches ``FastJSONEncoder``'s choices (`Data` as base64, `URL` as a string, `Date` as seconds
/// since 2001) and is strict RFC 8259.
enum FastJSONDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        try JSONTape.read(bytes) { tape in
            try withUnsafePointer(to: tape) { try ByteDecoder(tape: $0, entry: 0).decodeValue(type) }
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try value.serialized().withUnsafeBytes { try decode(type, from: $0) }
    }
}

struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The decoder of one value on a ``JSONTape``: two words, the tape and the value's entry, copied freely by every
/// container and child and never retained. Its coding path is not carried along: the tape knows where the entry
/// is, and ``JSONTape/codingPath(to:)`` spells it out when an error or a caller asks.
struct ByteDecoder: Decoder {
    init(tape: UnsafePointer<JSONTape>, entry: Int) {
        tapeReference = tape
        self.entry = entry
    }

    /// The tape, lent by reference.
    let tapeReference: UnsafePointer<JSONTape>
    /// The tape, read in place: a method called on it gets the lent tape's address where it can, where a getter
    /// returning `tapeReference.pointee` copies the tape (some hundred bytes) onto the stack for every use.
    var tape: JSONTape { unsafeAddress { tapeReference } }
    /// The tape entry of this value.
    let entry: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: entry) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var bytes: UnsafeRawBufferPointer { tape.bytes }
    var offset: Int { tape[entry].start }

    var first: UInt8 { bytes[offset] }

    func mismatch<T>(_ type: T.Type) -> DecodingError {
        let found: String
        switch first {
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        default:
            // The number's text, up to 64 bytes of it (a body may hold a number of any length).
            let end = tape[entry].end
            let text =
                String(decoding: bytes[offset..<min(end, offset + 64)], as: UTF8.self) + (end - offset > 64 ? "…" : "")
            guard !(type is any FixedWidthInteger.Type) else {
                // As Foundation's decoder says it: the value is a number, just not one this type holds.
                return DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: codingPath, debugDescription: "the number \(text) does not fit in \(type)"))
            }
            found = "the number \(text)"
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(found)"))
    }

    var isNull: Bool { first == UInt8(ascii: "n") }

    func bool() throws -> Bool {
        guard let value = Self.bool(tape, entry) else { throw mismatch(Bool.self) }
        return value
    }

    func string() throws -> String {
        guard let value = try Self.string(tape, entry) else { throw mismatch(String.self) }
        return value
    }

    func double() throws -> Double {
        guard let value = try Self.double(tape, entry) else { throw mismatch(Double.self) }
        return value
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard let value = try Self.integer(tape, entry, as: type) else { throw mismatch(type) }
        return value
    }

    func int() throws -> Int {
        guard let value = try Self.int(tape, entry) else { throw mismatch(Int.self) }
        return value
    }

    func number() throws -> JSONValue {
        guard let value = try Self.number(tape, entry) else { throw mismatch(Double.self) }
        return value
    }

    // MARK: Scalars, read straight from the tape: `nil` when the value is of another type (the caller, which
    // knows the path, makes the error), `JSONParseError` when its text is not valid.

    static func bool(_ tape: JSONTape, _ entry: Int) -> Bool? {
        switch tape.bytes[tape[entry].start] {
        case UInt8(ascii: "t"): true
        case UInt8(ascii: "f"): false
        default: nil
        }
    }

    static func string(_ tape: JSONTape, _ entry: Int) throws(JSONParseError) -> String? {
        guard tape.bytes[tape[entry].start] == UInt8(ascii: "\"") else { return nil }
        return try tape.text(entry)
    }

    static func number(_ tape: JSONTape, _ entry: Int) throws(JSONParseError) -> JSONValue? {
        let first = tape.bytes[tape[entry].start]
        guard first == UInt8(ascii: "-") || (first >= 48 && first <= 57) else { return nil }
        var parser = JSONParser(bytes: tape.bytes)
        parser.position = tape[entry].start
        return try parser.number()
    }

    static func double(_ tape: JSONTape, _ entry: Int) throws(JSONParseError) -> Double? {
        switch try number(tape, entry) {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    static func integer<I: FixedWidthInteger>(_ tape: JSONTape, _ entry: Int, as type: I.Type) throws(JSONParseError)
        -> I?
    {
        if let small = smallInteger(tape, entry) { return I(exactly: small) }
        // Read from its digits (the tape checked its syntax): through `Double`, a long or fractional text rounded
        // to a neighbouring integer, and one past `Double`'s range (`1e400`, 400 digits) was refused as not JSON.
        let bytes = tape.bytes
        let first = bytes[tape[entry].start]
        guard first == UInt8(ascii: "-") || (first >= 48 && first <= 57) else { return nil }
        return JSONIntegerText.exact(
            UnsafeRawBufferPointer(rebasing: bytes[tape[entry].start..<tape[entry].end]), as: type)
    }

    /// ``integer(_:_:as:)`` for `Int`, the integer type of nearly every record, without the generic one's
    /// run-time metadata lookups (it is not specialized where containers call it).
    static func int(_ tape: JSONTape, _ entry: Int) throws(JSONParseError) -> Int? {
        if let small = smallInteger(tape, entry) { return Int(exactly: small) }
        return try integer(tape, entry, as: Int.self)  // Rare: a long number, an exponent, a fraction.
    }

    /// The fast path of the integer readers: the value when it is plain decimal digits (with a minus) that surely
    /// fit in 64 bits, else `nil` for the full number parser to decide.
    @inline(__always)
    static func smallInteger(_ tape: JSONTape, _ entry: Int) -> Int64? {
        smallInteger(tape.bytes, from: tape[entry].start, to: tape[entry].end)
    }

    /// ``smallInteger(_:_:)`` of the number between offsets `start` and `end` of `bytes`.
    @inline(__always)
    static func smallInteger(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int64? {
        var position = start
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        var value: Int64 = 0
        while position < end, bytes[position] >= 48, bytes[position] <= 57 {
            value = value &* 10 &+ Int64(bytes[position] &- 48)
            position += 1
        }
        let digits = position - start - (negative ? 1 : 0)
        guard digits > 0, digits < 18, position == end else { return nil }
        return negative ? -value : value
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Metadata comparisons and bit casts (the types are equal), not dynamic casts: this runs for every nested
        // value and array element.
        if type == String.self { return unsafeBitCast(try string(), to: T.self) }
        if type == Int.self { return unsafeBitCast(try int(), to: T.self) }
        if type == Bool.self { return unsafeBitCast(try bool(), to: T.self) }
        if type == Double.self { return unsafeBitCast(try double(), to: T.self) }
        if type == Date.self { return unsafeBitCast(Date(timeIntervalSinceReferenceDate: try double()), to: T.self) }
        // Arrays of scalars without the unkeyed-container machinery: common in records (tags, ids).
        if type == [String].self { return unsafeBitCast(try scalars(String.self, Self.string), to: T.self) }
        if type == [Int].self {
            return unsafeBitCast(
                try scalars(Int.self, Self.int),
                to: T.self)
        }
        if type == [Double].self { return unsafeBitCast(try scalars(Double.self, Self.double), to: T.self) }
        if type == Data.self {
            guard let data = Data(base64Encoded: try string()) else { throw mismatch(Data.self) }
            return data as! T
        }
        if type == URL.self {
            guard let url = URL(string: try string()) else { throw mismatch(URL.self) }
            return url as! T
        }
        if type == Decimal.self {
            // From the number's digits, as the encoder wrote them: through `Double`, digits past its 17 were lost.
            guard first == UInt8(ascii: "-") || (first >= 48 && first <= 57),
                let decimal = Decimal(
                    string: String(decoding: bytes[offset..<tape[entry].end], as: UTF8.self), locale: nil),
                !decimal.isNaN
            else { throw mismatch(Decimal.self) }
            return decimal as! T
        }
        return try T(from: self)
    }

    /// The elements of the array here, scalars each read by `read` straight from the tape (`nil`: of another type).
    /// A path for the error is made only when an element is of another type. Inlined into each caller, so that the
    /// array is made for a concrete element type.
    @inline(__always)
    func scalars<Element>(_ type: Element.Type, _ read: (JSONTape, Int) throws(JSONParseError) -> Element?) throws
        -> [Element]
    {
        guard first == UInt8(ascii: "[") else { throw mismatch([Element].self) }
        let end = tape[entry].next
        var count = 0
        var element = entry + 1
        while element < end {
            count += 1
            element = tape[element].next
        }
        // Storage of the exact size, reserved rather than made by `init(unsafeUninitializedCapacity:)`: that one
        // allocates through a generic function of the standard library, which looks the array's storage type up in
        // the run time's metadata cache on every call, where `reserveCapacity` is specialized here for `Element`.
        var elements: [Element] = []
        elements.reserveCapacity(count)
        element = entry + 1
        while element < end {
            guard let value = try read(tape, element) else {
                throw ByteDecoder(tape: tapeReference, entry: element).mismatch(type)
            }
            elements.append(value)
            element = tape[element].next
        }
        return elements
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard first == UInt8(ascii: "{") else { throw mismatch([String: String].self) }
        return KeyedDecodingContainer(
            Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard first == UInt8(ascii: "[") else { throw mismatch([String].self) }
        return Unkeyed(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// The decoder of entry `entry` on the same tape.
    func child(_ entry: Int) -> ByteDecoder { ByteDecoder(tape: tapeReference, entry: entry) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        /// The decoder of the object; its members are the name and value entries after it on the tape (names are
        /// unique: the tape refuses a repeated one).
        let decoder: ByteDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var tape: JSONTape { unsafeAddress { decoder.tapeReference } }

        /// Calls `body` with each member's name and value entries until it returns `false`.
        func forEachMember(_ body: (_ name: Int, _ value: Int) -> Bool) {
            let end = tape[decoder.entry].next
            var name = decoder.entry + 1
            while name < end {
                guard body(name, name + 1) else { return }
                name = tape[name + 1].next
            }
        }

        var allKeys: [Key] {
            var keys: [Key] = []
            forEachMember { name, _ in
                if let key = Key(stringValue: tape.name(name)) { keys.append(key) }
                return true
            }
            return keys
        }

        /// The value entry of the member whose name has exactly the scalars of `key`. The search starts at the
        /// object's cursor, just past the member found last, and wraps around: members read in the order they
        /// were written (what synthesized `Codable` does with what it wrote) are each found at the first try.
        /// Inlined into each reader of a member, as is ``entry(of:)``: a call each cost more than the lookup.
        @inline(__always)
        func find(_ key: Key) -> Int? { find(named: key.stringValue) }

        /// ``find(_:)`` by the member's name, for a name the container's `Key` type may not have (`super`).
        @inline(__always)
        func find(named name: String) -> Int? {
            let entries = decoder.tapeReference.pointee.entries
            let object = decoder.entry
            let first = object + 1
            let end = entries[object].next
            guard first < end else { return nil }
            let cursor = entries[object].cursor < end ? entries[object].cursor : first
            var name8 = name
            return name8.withUTF8 { wanted -> Int? in
                let wanted = UnsafeRawBufferPointer(wanted)
                var member = cursor
                repeat {
                    if matches(member, wanted) {
                        entries[object].cursor32 = entries[member + 1].next32
                        return member + 1
                    }
                    member = entries[member + 1].next
                    if member >= end { member = first }
                } while member != cursor
                return nil
            }
        }

        /// Whether name entry `member` has exactly the bytes `wanted` (the scalars, escapes resolved).
        @inline(__always)
        func matches(_ member: Int, _ wanted: UnsafeRawBufferPointer) -> Bool {
            let name = decoder.tapeReference.pointee.entries[member]
            if name.isEscaped {
                // By the exact scalars: `String ==` would match a canonically equivalent name.
                return tape.name(member).isScalarIdentical(
                    to: String(decoding: wanted.assumingMemoryBound(to: UInt8.self), as: UTF8.self))
            }
            // The bytes between the quotes.
            let count = name.end - name.start - 2
            guard count == wanted.count else { return false }
            guard let base = decoder.bytes.baseAddress, let other = wanted.baseAddress else { return true }
            return ByteSpans.equal(base + name.start + 1, other, count: count)
        }

        @inline(__always)
        func entry(of key: Key) throws -> Int {
            guard let entry = find(key) else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'")
                )
            }
            return entry
        }

        /// A decoder for the member's value that carries no path of its own: primitives read through it, and a
        /// path is made only if an error or a nested container needs one.
        func child(_ key: Key) throws -> ByteDecoder { decoder.child(try entry(of: key)) }

        func contains(_ key: Key) -> Bool { find(key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool {
            guard let entry = find(key) else { return true }
            return decoder.bytes[tape[entry].start] == UInt8(ascii: "n")
        }
        // The scalars are read straight from the tape, with no child decoder made unless the value is of another
        // type (for the error's path). Each is its own non-generic function: a generic reader returning `T?` asks
        // the runtime for `Optional<T>`'s metadata on every call.
        func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
            let entry = try entry(of: key)
            guard let value = try ByteDecoder.integer(tape, entry, as: type) else {
                throw decoder.child(entry).mismatch(type)
            }
            return value
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            let entry = try entry(of: key)
            guard let value = ByteDecoder.bool(tape, entry) else { throw decoder.child(entry).mismatch(type) }
            return value
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            let entry = try entry(of: key)
            guard let value = try ByteDecoder.string(tape, entry) else {
                throw decoder.child(entry).mismatch(type)
            }
            return value
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            let entry = try entry(of: key)
            guard let value = try ByteDecoder.double(tape, entry) else {
                throw decoder.child(entry).mismatch(type)
            }
            return value
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            let entry = try entry(of: key)
            guard let value = try ByteDecoder.int(tape, entry) else { throw decoder.child(entry).mismatch(type) }
            return value
        }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let entry = find(key), decoder.bytes[tape[entry].start] != UInt8(ascii: "n") else { return nil }
            return try decoder.child(entry).decodeValue(type)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        { try child(key).container(keyedBy: type) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }
        // A missing member gives a decoder of `null`, as Foundation's decoder does.
        func superDecoder() throws -> any Decoder {
            // The member named `super`, whether or not `Key` has such a case (as Foundation's decoder does).
            guard let entry = find(named: "super") else {
                return NullDecoder(codingPath: codingPath + [AnyCodingKey("super")])
            }
            return decoder.child(entry)
        }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            guard let entry = find(key) else { return NullDecoder(codingPath: codingPath + [key]) }
            return decoder.child(entry)
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: ByteDecoder
        /// The entry of the next element.
        var element: Int
        var currentIndex = 0
        let count: Int?
        var codingPath: [any CodingKey] { decoder.codingPath }
        var isAtEnd: Bool { element >= decoder.tape[decoder.entry].next }

        init(decoder: ByteDecoder) {
            self.decoder = decoder
            element = decoder.entry + 1
            var count = 0
            var entry = element
            while entry < decoder.tape[decoder.entry].next {
                count += 1
                entry = decoder.tape[entry].next
            }
            self.count = count
        }

        mutating func next() throws -> ByteDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "the array ended"))
            }
            defer {
                currentIndex += 1
                element = decoder.tape[element].next
            }
            return decoder.child(element)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, decoder.bytes[decoder.tape[element].start] == UInt8(ascii: "n") else { return false }
            currentIndex += 1
            element = decoder.tape[element].next
            return true
        }
        mutating func decode(_ type: String.Type) throws -> String { try next().string() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().int() }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().double() }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        { try next().container(keyedBy: type) }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: ByteDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.isNull }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
        func decode(_ type: String.Type) throws -> String { try decoder.string() }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double() }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double()) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.int() }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
    }
}

extension JSONValue {
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .unsignedInteger, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

import Foundation
import StrataCore

/// A `Codable` decoder that reads JSON bytes in place: no tree is built. A keyed container scans its object
/// once, noting where each member's key and value are; values are parsed only when asked for, straight from
/// the bytes. It matches ``FastJSONEncoder``'s choices (`Data` as base64, `URL` as a string, `Date` as seconds
/// since 2001) and is strict RFC 8259.
enum FastJSONDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let scanner = JSONScanner(bytes: bytes)
        let start = scanner.skipWhitespace(from: 0)
        let end = try scanner.skipValue(at: start, depth: 0)
        guard scanner.skipWhitespace(from: end) == bytes.count else {
            throw JSONParseError(message: "unexpected text after the JSON value", offset: end)
        }
        return try ByteDecoder(bytes: bytes, offset: start, path: nil).decodeValue(type)
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try value.serialized().withUnsafeBytes { try decode(type, from: $0) }
    }
}

/// Structural scanning: where a value ends, validating it on the way.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer

    func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return position
            }
        }
        return position
    }

    /// The offset just past the value starting at `start` (which must not be white space).
    func skipValue(at start: Int, depth: Int) throws(JSONParseError) -> Int {
        guard depth < JSONParser.maximumDepth else { throw JSONParseError(message: "nesting too deep", offset: start) }
        guard start < bytes.count else { throw JSONParseError(message: "unexpected end of input", offset: start) }
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var position = skipWhitespace(from: start + 1)
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { return position + 1 }
            while true {
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw JSONParseError(message: "expected a member name", offset: position)
                }
                position = skipWhitespace(from: try skipString(at: position))
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw JSONParseError(message: "expected ':'", offset: position)
                }
                position = skipWhitespace(from: try skipValue(at: skipWhitespace(from: position + 1), depth: depth + 1))
                guard position < bytes.count else {
                    throw JSONParseError(message: "unterminated object", offset: position)
                }
                if bytes[position] == UInt8(ascii: "}") { return position + 1 }
                guard bytes[position] == UInt8(ascii: ",") else {
                    throw JSONParseError(message: "expected ',' or '}'", offset: position)
                }
                position = skipWhitespace(from: position + 1)
            }
        case UInt8(ascii: "["):
            var position = skipWhitespace(from: start + 1)
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { return position + 1 }
            while true {
                position = skipWhitespace(from: try skipValue(at: position, depth: depth + 1))
                guard position < bytes.count else {
                    throw JSONParseError(message: "unterminated array", offset: position)
                }
                if bytes[position] == UInt8(ascii: "]") { return position + 1 }
                guard bytes[position] == UInt8(ascii: ",") else {
                    throw JSONParseError(message: "expected ',' or ']'", offset: position)
                }
                position = skipWhitespace(from: position + 1)
            }
        case UInt8(ascii: "\""):
            return try skipString(at: start)
        case UInt8(ascii: "t"): return try literal("true", at: start)
        case UInt8(ascii: "f"): return try literal("false", at: start)
        case UInt8(ascii: "n"): return try literal("null", at: start)
        default: return try skipNumber(at: start)
        }
    }

    func literal(_ word: StaticString, at start: Int) throws(JSONParseError) -> Int {
        let count = word.utf8CodeUnitCount
        guard start + count <= bytes.count else {
            throw JSONParseError(message: "unexpected end of input", offset: start)
        }
        for index in 0..<count where bytes[start + index] != word.utf8Start[index] {
            throw JSONParseError(message: "invalid literal", offset: start)
        }
        return start + count
    }

    /// Checks RFC 8259 number grammar without converting anything.
    func skipNumber(at start: Int) throws(JSONParseError) -> Int {
        var position = start
        func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 48 && bytes[at] <= 57 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw JSONParseError(message: "invalid value", offset: start) }
        if bytes[position] == 48 {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digit(position) else { throw JSONParseError(message: "invalid number", offset: start) }
            while digit(position) { position += 1 }
        }
        return position
    }

    /// The offset past the closing quote of the string at `start`, checking escapes and control characters.
    func skipString(at start: Int) throws(JSONParseError) -> Int {
        var position = start + 1
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return position + 1 }
            if byte == UInt8(ascii: "\\") {
                var parser = JSONParser(bytes: bytes)
                parser.position = start
                _ = try parser.string()  // Validates every escape; rare in stored records.
                return parser.position
            }
            if byte < 0x20 { throw JSONParseError(message: "a control character in a string", offset: position) }
            position += 1
        }
        throw JSONParseError(message: "unterminated string", offset: start)
    }

    /// Reads the string at `start` (validating UTF-8), resolving escapes only when there are any.
    func string(at start: Int) throws(JSONParseError) -> String {
        var position = start + 1
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                guard
                    let text = String(
                        validating: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<position]), as: UTF8.self)
                else { throw JSONParseError(message: "invalid UTF-8 in a string", offset: start) }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            position += 1
        }
        var parser = JSONParser(bytes: bytes)
        parser.position = start
        return try parser.string()
    }
}

/// A coding path kept as a linked list, turned into an array only when an error needs it.
final class PathNode {
    let key: any CodingKey
    let parent: PathNode?
    init(_ key: any CodingKey, parent: PathNode?) {
        self.key = key
        self.parent = parent
    }
    var array: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: PathNode? = self
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

struct ByteDecoder: Decoder {
    let bytes: UnsafeRawBufferPointer
    let offset: Int
    /// The path of the container this value is in.
    let path: PathNode?
    /// This value's own key, not yet linked into a path node (made only when a nested container needs it).
    var pendingKey: (any CodingKey)? = nil
    var codingPath: [any CodingKey] { (path?.array ?? []) + (pendingKey.map { [$0] } ?? []) }

    /// The path node for containers opened on this value.
    var ownPath: PathNode? { pendingKey.map { PathNode($0, parent: path) } ?? path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var scanner: JSONScanner { JSONScanner(bytes: bytes) }

    var first: UInt8 { bytes[offset] }

    func mismatch<T>(_ type: T.Type) -> DecodingError {
        let found: String
        switch first {
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        default: found = "a number"
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(found)"))
    }

    var isNull: Bool { first == UInt8(ascii: "n") }

    func bool() throws -> Bool {
        if first == UInt8(ascii: "t") { return true }
        if first == UInt8(ascii: "f") { return false }
        throw mismatch(Bool.self)
    }

    func string() throws -> String {
        guard first == UInt8(ascii: "\"") else { throw mismatch(String.self) }
        return try scanner.string(at: offset)
    }

    func number() throws -> JSONValue {
        guard first == UInt8(ascii: "-") || (first >= 48 && first <= 57) else { throw mismatch(Double.self) }
        var parser = JSONParser(bytes: bytes)
        parser.position = offset
        return try parser.number()
    }

    func double() throws -> Double {
        switch try number() {
        case .integer(let value): return Double(value)
        case .unsignedInteger(let value): return Double(value)
        case .number(let value): return value
        default: throw mismatch(Double.self)
        }
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        // Fast path: a plain non-negative or negative decimal that fits.
        var position = offset
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        var value: Int64 = 0
        var digits = 0
        while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57, digits < 18 {
            value = value * 10 + Int64(bytes[position] - 48)
            position += 1
            digits += 1
        }
        let next = position < bytes.count ? bytes[position] : 0
        if digits > 0, digits < 18, next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
            !(next >= 48 && next <= 57)
        {
            guard let exact = I(exactly: negative ? -value : value) else { throw mismatch(type) }
            return exact
        }
        let exact: I?
        switch try number() {
        case .integer(let number): exact = I(exactly: number)
        case .unsignedInteger(let number): exact = I(exactly: number)
        case .number(let number): exact = I(exactly: number)
        default: exact = nil
        }
        guard let exact else { throw mismatch(type) }
        return exact
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == String.self { return try string() as! T }
        if type == Int.self { return try integer(Int.self) as! T }
        if type == Bool.self { return try bool() as! T }
        if type == Double.self { return try double() as! T }
        if type == Date.self { return Date(timeIntervalSinceReferenceDate: try double()) as! T }
        // Arrays of scalars without the unkeyed-container machinery: common in records (tags, ids).
        if type == [String].self { return try elements { try $0.string() } as! T }
        if type == [Int].self { return try elements { try $0.integer(Int.self) } as! T }
        if type == [Double].self { return try elements { try $0.double() } as! T }
        if type == Data.self {
            guard let data = Data(base64Encoded: try string()) else { throw mismatch(Data.self) }
            return data as! T
        }
        if type == URL.self {
            guard let url = URL(string: try string()) else { throw mismatch(URL.self) }
            return url as! T
        }
        if type == Decimal.self {
            switch try number() {
            case .integer(let number): return Decimal(number) as! T
            case .unsignedInteger(let number): return Decimal(number) as! T
            case .number(let number): return Decimal(number) as! T
            default: throw mismatch(Decimal.self)
            }
        }
        return try T(from: self)
    }

    /// The elements of the array here, each read by `read`.
    func elements<Element>(_ read: (ByteDecoder) throws -> Element) throws -> [Element] {
        guard first == UInt8(ascii: "[") else { throw mismatch([Element].self) }
        var result: [Element] = []
        let scanner = self.scanner
        var position = scanner.skipWhitespace(from: offset + 1)
        if bytes[position] == UInt8(ascii: "]") { return result }
        var index = 0
        let parent = ownPath  // One path node for the array, made once.
        while true {
            result.append(
                try read(ByteDecoder(bytes: bytes, offset: position, path: parent, pendingKey: IndexKey(index))))
            index += 1
            position = scanner.skipWhitespace(from: try scanner.skipValue(at: position, depth: 1))
            if bytes[position] == UInt8(ascii: "]") { return result }
            position = scanner.skipWhitespace(from: position + 1)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard first == UInt8(ascii: "{") else { throw mismatch([String: String].self) }
        return KeyedDecodingContainer(try Keyed<Key>(decoder: ByteDecoder(bytes: bytes, offset: offset, path: ownPath)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard first == UInt8(ascii: "[") else { throw mismatch([String].self) }
        return try Unkeyed(decoder: ByteDecoder(bytes: bytes, offset: offset, path: ownPath))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    func child(at offset: Int, key: any CodingKey) -> ByteDecoder {
        ByteDecoder(bytes: bytes, offset: offset, path: path, pendingKey: key)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ByteDecoder
        /// Each member: where its key's characters are (between the quotes), whether the key has escapes, and
        /// where its value starts.
        var members: [(keyStart: Int, keyEnd: Int, escaped: Bool, value: Int)] = []
        var codingPath: [any CodingKey] { decoder.codingPath }

        init(decoder: ByteDecoder) throws {
            self.decoder = decoder
            let scanner = decoder.scanner
            let bytes = decoder.bytes
            var position = scanner.skipWhitespace(from: decoder.offset + 1)
            if bytes[position] == UInt8(ascii: "}") { return }
            while true {
                let keyEnd = try scanner.skipString(at: position)
                var escaped = false
                for index in (position + 1)..<(keyEnd - 1) where bytes[index] == UInt8(ascii: "\\") {
                    escaped = true
                    break
                }
                let value = scanner.skipWhitespace(from: scanner.skipWhitespace(from: keyEnd) + 1)
                members.append((position + 1, keyEnd - 1, escaped, value))
                position = scanner.skipWhitespace(from: try scanner.skipValue(at: value, depth: 1))
                if bytes[position] == UInt8(ascii: "}") { break }
                position = scanner.skipWhitespace(from: position + 1)
            }
            try refuseRepeatedNames()
        }

        /// A name given twice (the same scalars) is refused: SQLite's JSON functions read the first member and a
        /// last-wins decoder the other, so the record would match queries on a value it does not read back with.
        func refuseRepeatedNames() throws {
            guard members.count > 1 else { return }
            let bytes = decoder.bytes
            // Escaped names (rare) are compared after resolving their escapes; others as they stand in the text.
            let anyEscaped = members.contains { $0.escaped }
            let escapedNames = anyEscaped ? members.map { $0.escaped ? Array(keyString($0).utf8) : nil } : []
            let repeated = DuplicateMemberNames.firstRepeat(
                count: members.count,
                length: { (anyEscaped ? escapedNames[$0]?.count : nil) ?? (members[$0].keyEnd - members[$0].keyStart) },
                equal: { first, second in
                    if anyEscaped, escapedNames[first] != nil || escapedNames[second] != nil {
                        return name(first, escapedNames) == name(second, escapedNames)
                    }
                    let count = members[first].keyEnd - members[first].keyStart
                    return memcmp(
                        bytes.baseAddress! + members[first].keyStart, bytes.baseAddress! + members[second].keyStart,
                        count) == 0
                },
                name: { name($0, escapedNames) })
            if let repeated {
                throw JSONParseError(
                    message: "the member name '\(keyString(members[repeated]))' appears twice in one object",
                    offset: members[repeated].keyStart - 1)
            }
        }

        func name(_ index: Int, _ escapedNames: [[UInt8]?]) -> ExactString {
            if !escapedNames.isEmpty, let decoded = escapedNames[index] {
                return ExactString(String(decoding: decoded, as: UTF8.self))
            }
            return ExactString(keyString(members[index]))
        }

        func keyString(_ member: (keyStart: Int, keyEnd: Int, escaped: Bool, value: Int)) -> String {
            if member.escaped { return (try? decoder.scanner.string(at: member.keyStart - 1)) ?? "" }
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: decoder.bytes[member.keyStart..<member.keyEnd]),
                as: UTF8.self)
        }

        var allKeys: [Key] { members.compactMap { Key(stringValue: keyString($0)) } }

        /// The value offset of the member whose name has exactly the scalars of `key` (names are unique: see
        /// `refuseRepeatedNames`).
        func find(_ key: Key) -> Int? {
            let name = key.stringValue
            var found: Int?
            var name8 = name
            name8.withUTF8 { wanted in
                for member in members {
                    if member.escaped {
                        // By the exact scalars: `String ==` would match a canonically equivalent name.
                        if keyString(member).isScalarIdentical(to: name) { found = member.value }
                        continue
                    }
                    guard member.keyEnd - member.keyStart == wanted.count else { continue }
                    if memcmp(decoder.bytes.baseAddress! + member.keyStart, wanted.baseAddress!, wanted.count) == 0 {
                        found = member.value
                    }
                }
            }
            return found
        }

        func offset(of key: Key) throws -> Int {
            guard let offset = find(key) else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'")
                )
            }
            return offset
        }

        func child(_ key: Key) throws -> ByteDecoder { decoder.child(at: try offset(of: key), key: key) }

        /// A decoder for the member's value that carries no path of its own: primitives read through it, and a
        /// path is made only if an error needs one.
        func bare(_ key: Key) throws -> ByteDecoder {
            ByteDecoder(bytes: decoder.bytes, offset: try offset(of: key), path: decoder.path, pendingKey: key)
        }

        func contains(_ key: Key) -> Bool { find(key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool {
            guard let offset = find(key) else { return true }
            return decoder.bytes[offset] == UInt8(ascii: "n")
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bare(key).bool() }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try bare(key).string() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try bare(key).double() }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try bare(key).double()) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try bare(key).integer(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try bare(key).integer(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try bare(key).integer(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try bare(key).integer(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try bare(key).integer(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try bare(key).integer(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try bare(key).integer(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try bare(key).integer(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try bare(key).integer(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try bare(key).integer(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try bare(key).decodeValue(type) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let offset = find(key), decoder.bytes[offset] != UInt8(ascii: "n") else { return nil }
            return try ByteDecoder(bytes: decoder.bytes, offset: offset, path: decoder.path, pendingKey: key)
                .decodeValue(type)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        { try child(key).container(keyedBy: type) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            guard let key = Key(stringValue: "super"), let offset = find(key) else { return decoder }
            return decoder.child(at: offset, key: key)
        }
        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: ByteDecoder
        var elements: [Int] = []
        var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(decoder: ByteDecoder) throws {
            self.decoder = decoder
            let scanner = decoder.scanner
            var position = scanner.skipWhitespace(from: decoder.offset + 1)
            if decoder.bytes[position] == UInt8(ascii: "]") { return }
            while true {
                elements.append(position)
                position = scanner.skipWhitespace(from: try scanner.skipValue(at: position, depth: 1))
                if decoder.bytes[position] == UInt8(ascii: "]") { return }
                position = scanner.skipWhitespace(from: position + 1)
            }
        }

        mutating func next() throws -> ByteDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "the array ended"))
            }
            defer { currentIndex += 1 }
            return decoder.child(at: elements[currentIndex], key: IndexKey(currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, decoder.bytes[elements[currentIndex]] == UInt8(ascii: "n") else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode(_ type: String.Type) throws -> String { try next().string() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
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
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
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

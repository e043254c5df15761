import Foundation
public import StrataCore

/// A JSON value: what migration transforms edit and what imports validate.
///
/// Object members are kept by the exact Unicode scalars of their names (``/StrataCore/ExactString``): `"caf\u{E9}"` and
/// `"cafe\u{301}"` are two members, as they are two distinct strings in the JSON text. An object whose text names the
/// same member twice (the same scalars) is refused when parsed: SQLite's JSON functions would see the first and a
/// decoder the last, so such a record could match a query on one value and read back with the other.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    /// An integer above `Int64.max`, kept exact.
    case unsignedInteger(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// An object: members by the exact scalars of their names.
    case object([ExactString: JSONValue])

    /// The member of an object whose name has exactly the scalars of `key` (not merely canonically equivalent
    /// ones), or `nil`.
    public subscript(key: String) -> JSONValue? {
        get {
            if case .object(let members) = self { return members[ExactString(key)] }
            return nil
        }
        set {
            guard case .object(var members) = self else { return }
            members[ExactString(key)] = newValue
            self = .object(members)
        }
    }

    /// Compact RFC 8259 text, object members sorted by the bytes of their names.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }

    /// Compact RFC 8259 UTF-8.
    public func serialized() -> [UInt8] {
        var out = [UInt8]()
        write(to: &out)
        return out
    }

    /// What is left to write of a value: a value, a member's name and its colon, or punctuation.
    private enum Pending {
        case value(JSONValue)
        case name(String)
        case byte(UInt8)
    }

    /// Writes the value with a stack of what is left to write, so that a value of any depth is written without
    /// recursion.
    func write(to out: inout [UInt8]) {
        var pending: [Pending] = [.value(self)]
        while let next = pending.popLast() {
            switch next {
            case .byte(let byte): out.append(byte)
            case .name(let name):
                JSONWriter.appendString(name, to: &out)
                out.append(UInt8(ascii: ":"))
            case .value(.null): out += Array("null".utf8)
            case .value(.bool(let flag)): out += Array((flag ? "true" : "false").utf8)
            case .value(.integer(let number)): out += Array(String(number).utf8)
            case .value(.unsignedInteger(let number)): out += Array(String(number).utf8)
            case .value(.number(let number)): JSONWriter.appendDouble(number, to: &out)
            case .value(.string(let text)): JSONWriter.appendString(text, to: &out)
            case .value(.array(let items)):
                out.append(UInt8(ascii: "["))
                pending.append(.byte(UInt8(ascii: "]")))
                for (index, item) in items.enumerated().reversed() {
                    pending.append(.value(item))
                    if index > 0 { pending.append(.byte(UInt8(ascii: ","))) }
                }
            case .value(.object(let members)):
                out.append(UInt8(ascii: "{"))
                pending.append(.byte(UInt8(ascii: "}")))
                for (index, key) in members.keys.sorted().enumerated().reversed() {
                    pending.append(.value(members[key]!))
                    pending.append(.name(key.string))
                    if index > 0 { pending.append(.byte(UInt8(ascii: ","))) }
                }
            }
        }
    }

    /// Parses RFC 8259 JSON (one value, surrounded by optional white space).
    /// - Throws: ``JSONParseError`` with the byte offset.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.fail("unexpected text after the JSON value") }
        return value
    }

    /// Parses JSON text.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var copy = text
        var result: Result<JSONValue, JSONParseError>!
        copy.withUTF8 { bytes in
            do throws(JSONParseError) {
                result = .success(try parse(UnsafeRawBufferPointer(bytes)))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }
}

/// Why JSON could not be parsed, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var position = 0
    static let maximumDepth = 512

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func fail(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: position) }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard position < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var members: [ExactString: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name")
                }
                let nameStart = position
                let key = ExactString(try string())
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                position += 1
                let member = try value(depth: depth + 1)
                guard members.updateValue(member, forKey: key) == nil else {
                    position = nameStart
                    throw fail("the member name '\(key)' appears twice in one object")
                }
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return try number()
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("unexpected end of input") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw fail("invalid literal") }
        position += count
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 else { throw fail("invalid value") }
        if bytes[position] == 48 {
            position += 1
        } else {
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 else {
                throw fail("invalid number")
            }
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 else {
                throw fail("invalid number")
            }
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 { position += 1 }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        if isInteger, let unsigned = UInt64(text) { return .unsignedInteger(unsigned) }
        guard let number = Double(text), number.isFinite else { throw fail("number out of range") }
        return .number(number)
    }

    mutating func string() throws(JSONParseError) -> String {
        position += 1  // The opening quote.
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                position += 1
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                return text
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u")
                        else { throw fail("a lone high surrogate") }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("an invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("a lone low surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("an invalid code point") }
                    out += Array(String(Character(unicode)).utf8)
                default: throw fail("an invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw fail("a control character in a string") }
                out.append(byte)
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw fail("an invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}

/// Writes JSON scalars exactly as RFC 8259 wants them.
enum JSONWriter {
    static let hexDigits = Array("0123456789abcdef".utf8)

    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0), to: &out) }
        out.append(0x22)
    }

    /// Appends UTF-8 bytes as the inside of a JSON string: quotes, backslashes and control characters escaped.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            default:
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
            runStart = index + 1
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart...]))
    }

    /// Shortest round-tripping decimal; integral values keep a `.0` out (`3` not `3.0`), as JSON allows.
    static func appendDouble(_ number: Double, to out: inout [UInt8]) {
        if number == number.rounded(.towardZero), abs(number) < 1e15 {
            out += Array(String(Int64(number)).utf8)
        } else {
            out += Array("\(number)".utf8)
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let unsigned = try? container.decode(UInt64.self) {
            self = .unsignedInteger(unsigned)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            // Through a keyed container, not `[String: JSONValue]`: a `String`-keyed dictionary would merge
            // canonically equivalent names.
            let object = try decoder.container(keyedBy: AnyCodingKey.self)
            var members: [ExactString: JSONValue] = [:]
            for key in object.allKeys {
                guard
                    members.updateValue(
                        try object.decode(JSONValue.self, forKey: key), forKey: ExactString(key.stringValue)) == nil
                else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: object, debugDescription: "the member name appears twice in one object")
                }
            }
            self = .object(members)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .object(let members) = self {
            var object = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                try object.encode(value, forKey: AnyCodingKey(key.string))
            }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let number): try container.encode(number)
        case .unsignedInteger(let number): try container.encode(number)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object: break  // Written above.
        }
    }
}

/// A record of any shape: its JSON, with the id read from its `id` member. For tools that do not know the
/// record types of a store (the `strata` CLI).
public struct AnyRecord: Codable, Identifiable, Sendable, Hashable {
    /// The record's id as stored (`5` for an integer id).
    public var id: String
    /// The whole record.
    public var body: JSONValue

    public init(body: JSONValue) throws {
        switch body["id"] {
        case .string(let text)?: id = text
        case .integer(let number)?: id = String(number)
        case .unsignedInteger(let number)?: id = String(number)
        default:
            throw DecodingError.keyNotFound(
                AnyCodingKey("id"),
                DecodingError.Context(codingPath: [], debugDescription: "a record needs a string or integer id"))
        }
        self.body = body
    }

    public init(from decoder: any Decoder) throws {
        try self.init(body: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws { try body.encode(to: encoder) }
}

struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ value: String) { stringValue = value }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

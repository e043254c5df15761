import Foundation
import StrataCore

/// A JSON value read with its numbers exactly as written: where ``JSONValue`` parses a number into `Int64` or
/// `Double`, this keeps its text (a `Decimal`, an integer past 2^53, a number of an imported line), for an engine
/// that must know the exact value a database will store (``fields(_:in:)``).
package indirect enum JSONExactValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number's text as written (RFC 8259 syntax: a sign, digits, a fraction, an exponent).
    case number([UInt8])
    case string(String)
    case array([JSONExactValue])
    /// An object's members, in the order written (names are unique: a repeated one is refused when read).
    case object([(name: String, value: JSONExactValue)])

    package static func == (lhs: JSONExactValue, rhs: JSONExactValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.name) == b.map(\.name) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The values of fields of a JSON object (an encoded record's body), each found by its path of member names
    /// (`["address", "city"]` for `address.city`): `nil` where a member is missing or a step of the path is not an
    /// object.
    /// - Throws: `JSONParseError` when `body` is not one valid JSON document.
    package static func fields(_ paths: [[String]], in body: UnsafeRawBufferPointer) throws -> [JSONExactValue?] {
        try JSONTape.read(body) { tape in
            try paths.map { path in
                var entry = 0
                for name in path {
                    guard let member = tape.member(name, of: entry) else { return nil }
                    entry = member
                }
                return try tape.exactValue(entry)
            }
        }
    }
}

extension JSONTape {
    /// The value entry of the member `name` of the object entry `object`, or `nil` (also when it is no object).
    fileprivate func member(_ name: String, of object: Int) -> Int? {
        guard bytes[self[object].start] == UInt8(ascii: "{") else { return nil }
        let end = self[object].next
        var child = object + 1
        while child < end {
            // By the exact scalars, as `jsonb` compares names: `String ==` would take `\u212A` (KELVIN SIGN) for `K`.
            let escaped = self[child].isEscaped
            if escaped ? self.name(child).isScalarIdentical(to: name) : Self.equal(quoted(child), name) {
                return child + 1
            }
            child = self[child + 1].next
        }
        return nil
    }

    /// Whether `bytes` are the UTF-8 of `name`.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ name: String) -> Bool {
        var name = name
        return name.withUTF8 { utf8 in
            utf8.count == bytes.count
                && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, utf8.count) == 0)
        }
    }

    /// The value of entry `index`, numbers kept as written.
    fileprivate func exactValue(_ index: Int) throws -> JSONExactValue {
        let entry = self[index]
        switch bytes[entry.start] {
        case UInt8(ascii: "{"):
            var members: [(name: String, value: JSONExactValue)] = []
            var child = index + 1
            while child < entry.next {
                members.append((name(child), try exactValue(child + 1)))
                child = self[child + 1].next
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONExactValue] = []
            var child = index + 1
            while child < entry.next {
                elements.append(try exactValue(child))
                child = self[child].next
            }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try text(index))
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "n"): return .null
        default: return .number(Array(bytes[entry.start..<entry.end]))
        }
    }
}

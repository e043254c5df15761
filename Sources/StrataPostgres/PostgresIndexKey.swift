package import StrataRecords

/// The order-preserving key of an indexed field's value, which the client computes and stores in a `bytea` column
/// of its own (`k__<field>`): `memcmp` orders two keys exactly as `jsonb` orders the values (on a database whose
/// collation sorts text bytewise), and two keys are equal exactly when the values are `jsonb`-equal. The server
/// then compares keys with `byteacmp` instead of walking `jsonb` values, and evaluates no expression per record.
///
/// - A missing field or JSON `null` is the empty key, which sorts first (as SQL NULL under `NULLS FIRST`).
/// - Top level: `[]` is `01`; a scalar `02` then its token; a non-empty array `03`, its element count (4 bytes,
///   big-endian), then its elements' tokens; an object `04`, its member count, then each member's name token and
///   value token, in `jsonb`'s storage order (names by length, then bytes). This is `jsonb_cmp`'s own order.
/// - Tokens, led by `jsonb`'s type order: `null` `00`; a string `01`, its UTF-8, `00`; a number `02` then its
///   form; `false` `03 00`, `true` `03 01`; a nested array `10` and a nested object `11`, each with its count and
///   its tokens.
/// - A number as `numeric` compares it: `02` for zero; else the digits without leading or trailing zeros, the
///   exponent *e* with the value 0.*digits* × 10^*e*, written `03`, *e* + 2²³ in 3 bytes, the digits two to a
///   byte (each pair plus 1), `00`; a negative number `01` and every following byte complemented.
package enum PostgresIndexKey {
    /// The key of a field's value (`nil`: missing).
    static func key(_ value: JSONExactValue?) -> [UInt8] {
        var key: [UInt8] = []
        switch value {
        case nil, .null?: break
        case .array(let elements)? where elements.isEmpty: key.append(1)
        case .array(let elements)?:
            key.append(3)
            appendCount(elements.count, to: &key)
            for element in elements { appendToken(element, to: &key) }
        case .object(let members)?:
            key.append(4)
            appendMembers(members, to: &key)
        case let scalar?:
            key.append(2)
            appendToken(scalar, to: &key)
        }
        return key
    }

    /// The key of a query's value, as a field holding it would have. JSON `null` (a non-finite real) keys as a
    /// top-level scalar `null`, which no stored key equals (a stored `null` is the empty key).
    package static func key(_ value: QueryValue) -> [UInt8] {
        var key: [UInt8] = [2]
        appendToken(exact(value), to: &key)
        return key
    }

    /// A query's value as a JSON value, numbers in the text a record would hold.
    static func exact(_ value: QueryValue) -> JSONExactValue {
        switch value {
        case .integer(let number): .number(Array(String(number).utf8))
        case .real(let number): number.isFinite ? .number(JSONValue.number(number).serialized()) : .null
        case .text(let text): .string(text)
        case .bool(let flag): .bool(flag)
        case .null: .null
        }
    }

    /// The first byte of a top-level scalar's key, then its type's: every key of a scalar of `value`'s JSON type
    /// starts with these two bytes.
    static func typePrefix(_ value: QueryValue) -> [UInt8] { [2, key(value)[1]] }

    /// The key prefix of strings starting with `prefix`; every such key is below the prefix followed by `FF`
    /// (UTF-8 has no `FF`).
    static func stringPrefix(_ prefix: String) -> [UInt8] { [2, 1] + Array(prefix.utf8) }

    private static func appendToken(_ value: JSONExactValue, to key: inout [UInt8]) {
        switch value {
        case .null: key.append(0)
        case .string(let text):
            key.append(1)
            key.append(contentsOf: text.utf8)
            key.append(0)
        case .number(let text):
            key.append(2)
            appendNumber(text, to: &key)
        case .bool(let flag): key += [3, flag ? 1 : 0]
        case .array(let elements):
            key.append(0x10)
            appendCount(elements.count, to: &key)
            for element in elements { appendToken(element, to: &key) }
        case .object(let members):
            key.append(0x11)
            appendMembers(members, to: &key)
        }
    }

    /// The count, then the members in `jsonb`'s storage order: names by their UTF-8 length, then their bytes.
    private static func appendMembers(_ members: [(name: String, value: JSONExactValue)], to key: inout [UInt8]) {
        appendCount(members.count, to: &key)
        let sorted = members.sorted {
            let (a, b) = ($0.name.utf8, $1.name.utf8)
            return a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
        }
        for member in sorted {
            appendToken(.string(member.name), to: &key)
            appendToken(member.value, to: &key)
        }
    }

    private static func appendCount(_ count: Int, to key: inout [UInt8]) {
        let count = UInt32(clamping: count)
        key += [
            UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count),
        ]
    }

    /// The exponent's bias: *e* + 2²³ fits 3 bytes for every exponent `numeric` holds (|*e*| < 2¹⁸); one past
    /// that (a number the server refuses anyway) is clamped.
    private static let exponentBias = 1 << 23

    /// Appends a number's form from its JSON text (never through a `Double`), in one pass and with nothing
    /// allocated but the key's own growth.
    static func appendNumber(_ text: [UInt8], to key: inout [UInt8]) {
        let (zero, nine, dot) = (UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "."))
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index += 1 }
        // Where the first and last non-zero digits are, how many digits come before the first, and before the
        // point.
        var first = -1
        var last = -1
        var leading = 0
        var point = 0
        var seenPoint = false
        var ordinal = 0
        while index < text.count {
            let byte = text[index]
            if byte == dot {
                seenPoint = true
            } else if byte >= zero && byte <= nine {
                if byte != zero {
                    if first < 0 { (first, leading) = (index, ordinal) }
                    last = index
                }
                if !seenPoint { point += 1 }
                ordinal += 1
            } else {
                break
            }
            index += 1
        }
        var exponent = 0
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            let negativeExponent = index < text.count && text[index] == UInt8(ascii: "-")
            if index < text.count && (text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+")) {
                index += 1
            }
            while index < text.count, text[index] >= zero, text[index] <= nine {
                exponent = Swift.min(exponent * 10 + Int(text[index] - zero), exponentBias)
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        guard first >= 0 else {
            key.append(2)
            return
        }
        // 0.d1d2… × 10^e: leading zeros dropped (each moves the point left), trailing ones too.
        if negative { key.append(1) }
        let start = key.count
        let e = Swift.max(Swift.min(point - leading + exponent + exponentBias, (1 << 24) - 1), 0)
        key += [3, UInt8(e >> 16), UInt8(truncatingIfNeeded: e >> 8), UInt8(truncatingIfNeeded: e)]
        var pending: UInt8?
        for at in first...last where text[at] != dot {
            let digit = text[at] - zero
            if let high = pending {
                key.append(high * 10 + digit + 1)
                pending = nil
            } else {
                pending = digit
            }
        }
        if let high = pending { key.append(high * 10 + 1) }
        key.append(0)
        if negative {
            for at in start..<key.count { key[at] = 255 - key[at] }
        }
    }

    /// The key as a `bytea` literal in PostgreSQL's hex text form (`\x…`), for a parameter in text format.
    package static func hex(_ key: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + 2 * key.count)
        for byte in key {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }
}

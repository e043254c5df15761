import Foundation
import StrataCore
import Testing

@testable import StrataRecords

/// Hostile and edge numbers for the integer reader (``JSONIntegerText``) and the decoder of a missing member
/// (``NullDecoder``), beside Foundation's `JSONDecoder` where both read a text the same way.
@Suite("Records decoder: integers at every boundary, super decoders of what is not there")
struct DecoderEdgeAdversarialTests {
    static func strata<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try Array(json.utf8).withUnsafeBytes { try FastJSONDecoder.decode(type, from: $0) }
    }

    static func foundation<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    /// Each width's bounds, written plainly and with a fraction or an exponent, read as the bound (by a member, an
    /// element and a single value); one past each bound is refused as a number that does not fit.
    static func checkBounds<I: FixedWidthInteger & Codable>(_ type: I.Type) throws {
        for bound in [I.min, I.max] {
            let plain = "\(bound)"
            let digits = plain.hasPrefix("-") ? String(plain.dropFirst()) : plain
            let sign = plain.hasPrefix("-") ? "-" : ""
            let forms = [
                plain, plain + ".0", plain + "e0", plain + "E+0", plain + ".000e-0",
                sign + "0." + digits + "e\(digits.count)",
                sign + "0.000" + digits + "000e+\(digits.count + 3)",
            ]
            let scaled = bound != 0 ? [plain + "0e-1"] : []
            let scientific =
                digits.count > 1 ? [sign + digits.prefix(1) + "." + digits.dropFirst() + "E\(digits.count - 1)"] : []
            for text in forms + scaled + scientific {
                #expect(try strata(type, text) == bound, "\(type) \(text)")
                #expect(try strata([I].self, "[" + text + "]") == [bound], "\(type) [\(text)]")
                #expect(try strata([String: I].self, #"{"v":"# + text + "}") == ["v": bound], "\(type) {\(text)}")
            }
            #expect(try foundation(type, plain) == bound)
            // One past the bound, plainly and with an exponent.
            // One past the bound, written by hand where UInt64 cannot hold it.
            let past =
                bound == I.max
                ? (UInt64(I.max) == UInt64.max ? "18446744073709551616" : String(UInt64(I.max) + 1))
                : "-" + String(UInt64(I.min.magnitude) + 1)
            for text in [past, past + ".0", past + "0e-1"] where bound != 0 {
                #expect(throws: DecodingError.self, "\(type) \(text)") { try strata(type, text) }
                #expect(throws: DecodingError.self, "\(type) [\(text)]") { try strata([I].self, "[" + text + "]") }
            }
        }
        // Zero however written, and a fraction just inside the bound.
        for text in ["0", "-0", "-0.0", "0e0", "0.0e-7", "-0E+99", "0e999999999", "0.000e-999999999999999999999"] {
            #expect(try strata(type, text) == 0, "\(type) \(text)")
        }
        for text in [
            "\(I.max).5", "\(I.max - 1).9999999999999999999999999", "0.5", "-0.5", "1e-1", "1.0000000000000000000001",
        ] {
            #expect(throws: DecodingError.self, "\(type) \(text)") { try strata(type, text) }
        }
    }

    @Test func everyWidthReadsItsBoundsAndRefusesOnePast() throws {
        try Self.checkBounds(Int8.self)
        try Self.checkBounds(Int16.self)
        try Self.checkBounds(Int32.self)
        try Self.checkBounds(Int64.self)
        try Self.checkBounds(Int.self)
        try Self.checkBounds(UInt8.self)
        try Self.checkBounds(UInt16.self)
        try Self.checkBounds(UInt32.self)
        try Self.checkBounds(UInt64.self)
        try Self.checkBounds(UInt.self)
    }

    @Test(arguments: [
        ("1e19", UInt64(10_000_000_000_000_000_000)), ("18446744073709551615", UInt64.max),
        ("1.8446744073709551615e19", UInt64.max), ("184467440737095516150e-1", UInt64.max),
        ("0.0000000000000000000000018446744073709551615e43", UInt64.max), ("-0", 0), ("-0e5", 0), ("1E+2", 100),
    ])
    func unsignedSixtyFourBitsReadExactly(_ text: String, _ expected: UInt64) throws {
        #expect(try Self.strata(UInt64.self, text) == expected)
        #expect(try Self.strata(UInt.self, text) == UInt(expected))
    }

    @Test(arguments: [
        "1e20", "-1e0", "-1", "-0.1", "18446744073709551616", "1.8446744073709551616e19", "18446744073709551615.5",
        String(repeating: "9", count: 400), "1" + String(repeating: "0", count: 400), "1e999999999",
        "1e-999999999", "1e99999999999999999999999999999", "1e-99999999999999999999999999999",
        "-" + String(repeating: "9", count: 400) + "e-390",
    ])
    func unsignedSixtyFourBitsRefuseWhatDoesNotFit(_ text: String) throws {
        let error = #expect(throws: DecodingError.self) { try Self.strata(UInt64.self, text) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("\(text): not dataCorrupted: \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("does not fit in UInt64"), "\(context.debugDescription)")
        // The number is named, cut at 64 bytes.
        #expect(context.debugDescription.utf8.count < 64 + 40, "\(context.debugDescription)")
    }

    /// A whole number written with a long fraction: `0.000…1e400` is 1, however many zeros stand before the 1.
    @Test(arguments: [10, 400, 5000])
    func aLongFractionScaledToAWholeNumberIsThatNumber(_ zeros: Int) throws {
        let small = "0." + String(repeating: "0", count: zeros) + "1e\(zeros + 1)"
        #expect(try Self.strata(Int.self, small) == 1)
        #expect(try Self.strata(Int8.self, "-" + small) == -1)
        let large = "1" + String(repeating: "0", count: zeros) + "e-\(zeros)"
        #expect(try Self.strata(Int.self, large) == 1)
        #expect(try Self.foundation(Int.self, small) == 1)
    }

    /// A fraction of more digits than the exponent reader's clamp (it stopped at 100 000): `0.0…01e100002` is 1,
    /// and `10…0e-100001` too; both were refused as numbers that do not fit.
    @Test func anExponentPastAHundredThousandScalesALongerFraction() throws {
        let zeros = 100_001
        let small = "0." + String(repeating: "0", count: zeros) + "1e\(zeros + 1)"
        #expect(try Self.strata(Int.self, small) == 1)
        #expect(try Self.strata(UInt8.self, small) == 1)
        let large = "1" + String(repeating: "0", count: zeros) + "e-\(zeros)"
        #expect(try Self.strata(Int.self, large) == 1)
        #expect(Array(small.utf8).withUnsafeBytes(JSONIntegerText.isWhole))
        let tenth = "0." + String(repeating: "0", count: zeros) + "1e\(zeros)"
        #expect(!Array(tenth.utf8).withUnsafeBytes(JSONIntegerText.isWhole))
        #expect(try Self.foundation(Int.self, small) == 1)
    }

    /// White space around a number with a fraction or an exponent is not part of its text.
    @Test func whiteSpaceAroundANumberIsNotItsText() throws {
        #expect(try Self.strata([String: Int8].self, "{ \"v\" : 1.0e2 \n}") == ["v": 100])
        #expect(try Self.strata([UInt64].self, "[ 1e19 ,\t1.0\r\n]") == [10_000_000_000_000_000_000, 1])
        #expect(try Self.strata(Int.self, " -0.0 ") == 0)
    }

    /// A stored body with an integer past `Double`'s range (valid JSON: RFC 8259 sets no limit) does not fit an
    /// `Int` field: a type mismatch naming the field, as with Foundation's decoder. It was refused as `corrupt`,
    /// "not valid JSON: number out of range", without the field.
    @Test(arguments: ["1e400", "-1e999999999", String(repeating: "7", count: 400)])
    func anIntegerPastDoublesRangeIsATypeMismatchNamingTheField(_ number: String) throws {
        struct Record: Decodable { var id: String; var n: Int }
        let body = Array(#"{"id":"1","n":"#.utf8) + Array(number.utf8) + Array("}".utf8)
        let error = #expect(throws: StorageError.self) {
            try body.withUnsafeBytes { try RecordCoder.decode(Record.self, from: $0, collection: "c", id: "1") }
        }
        #expect(error?.code == .typeMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("'n'") == true, "\(String(describing: error))")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Record.self, from: Data(body)) }
        #expect(try Self.strata(Double?.self, "null") == nil)
    }

    /// Strata's integers beside Foundation's: every text both read, they read alike.
    @Test(arguments: [
        "0", "-0", "1", "-1", "127", "-128", "9007199254740992", "-9007199254740992", "1.0", "1e2", "10e-1",
        "1.50e1", "1e-0", "-1e0", "9223372036854775807", "-9223372036854775808",
    ])
    func integersAsFoundationReadsThem(_ text: String) throws {
        if let theirs = try? Self.foundation(Int64.self, text) { #expect(try Self.strata(Int64.self, text) == theirs) }
        if let theirs = try? Self.foundation(Int8.self, text) { #expect(try Self.strata(Int8.self, text) == theirs) }
        if let theirs = try? Self.foundation(UInt64.self, text) {
            #expect(try Self.strata(UInt64.self, text) == theirs)
        }
    }

    /// `Double` and `Float` beside the integers: a number an integer refuses is still a number.
    @Test func doublesAndFloatsReadWhatIntegersRefuse() throws {
        #expect(try Self.strata(Double.self, "1.5") == 1.5)
        #expect(try Self.strata(Double.self, "18446744073709551616") == 0x1p64)
        #expect(try Self.strata(Double.self, "-9223372036854775809") == -0x1p63)
        #expect(try Self.strata(Float.self, "16777217") == 16_777_216)
        #expect(try Self.strata(Double.self, "0." + String(repeating: "0", count: 400) + "1e401") == 1)
        #expect(try Self.strata([Double].self, "[1e2,-0,0.5]") == [100, 0, 0.5])
        let negativeZero = try Self.strata(Double.self, "-0.0")
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
    }

    /// A `Decimal` is written from its digits by the encoder; read back, it is the same decimal, as Foundation's
    /// decoder reads it.
    @Test(arguments: [
        "0.1", "3.14159", "12345678901234567890.123", "-0.000001", "1e-7", "79228162514264337593543950335", "-0",
        "1E+20", "123456789012345678901234567890123456789",
    ])
    func aDecimalReadsItsDigits(_ text: String) throws {
        let expected = try #require(Decimal(string: text))
        #expect(try Self.foundation(Decimal.self, text) == expected)
        #expect(try Self.strata(Decimal.self, text) == expected)
        let encoded = try FastJSONEncoder.encode(["d": expected])
        #expect(
            try encoded.withUnsafeBytes { try FastJSONDecoder.decode([String: Decimal].self, from: $0) } == [
                "d": expected
            ])
    }

    /// A number no `Decimal` holds, or not a number, is refused as with Foundation's decoder.
    @Test(arguments: ["1e400", "-1e999999999", "\"1.5\"", "true", "null", "[1]"])
    func whatIsNotADecimalIsRefused(_ json: String) throws {
        #expect(throws: (any Error).self) { try Self.foundation(Decimal.self, json) }
        #expect(throws: DecodingError.self) { try Self.strata(Decimal.self, json) }
    }

    // MARK: Super decoders

    final class Base: Codable, Equatable, Sendable {
        let name: String
        init(name: String) { self.name = name }
        static func == (first: Base, second: Base) -> Bool { first.name == second.name }
    }

    /// A subclass written the way Apple's documentation shows: the base class in a `super` member.
    final class Derived: Codable, Equatable, Sendable {
        let base: Base?
        let level: Int
        enum Keys: String, CodingKey { case level }
        init(base: Base?, level: Int) { (self.base, self.level) = (base, level) }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            level = try container.decode(Int.self, forKey: .level)
            base = try Base?(from: container.superDecoder())
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(level, forKey: .level)
            try base.encode(to: container.superEncoder())
        }
        static func == (first: Derived, second: Derived) -> Bool {
            first.base == second.base && first.level == second.level
        }
    }

    @Test(arguments: [
        #"{"level":1}"#, #"{"level":1,"super":null}"#, #"{"super":{"name":"b"},"level":2}"#,
        #"{"level":3,"super":{"name":"c","extra":[1,2]}}"#,
    ])
    func aSuperMemberMissingOrNullIsAnOptionalsNil(_ json: String) throws {
        let theirs = try Self.foundation(Derived.self, json)
        #expect(try Self.strata(Derived.self, json) == theirs)
    }

    @Test(arguments: [Derived(base: nil, level: 1), Derived(base: Base(name: "b"), level: 2)])
    func aSubclassRoundTripsThroughItsSuperMember(_ value: Derived) throws {
        let encoded = try FastJSONEncoder.encode(value)
        #expect(try encoded.withUnsafeBytes { try FastJSONDecoder.decode(Derived.self, from: $0) } == value)
        #expect(try JSONDecoder().decode(Derived.self, from: Data(encoded)) == value)
    }

    /// Super decoders of keys that are missing, `null` or present, nested, and read as optionals or values.
    struct Nested: Decodable, Equatable {
        var missingIsNil: Bool
        var nullIsNil: Bool
        var inner: Int?
        var deep: String?
        enum Keys: String, CodingKey { case missing, null, inner, deep }
        enum DeepKeys: String, CodingKey { case leaf }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            missingIsNil = try container.superDecoder(forKey: .missing).singleValueContainer().decodeNil()
            nullIsNil = try container.superDecoder(forKey: .null).singleValueContainer().decodeNil()
            inner = try Int?(from: container.superDecoder(forKey: .inner))
            let deepDecoder = try container.superDecoder(forKey: .deep)
            if try deepDecoder.singleValueContainer().decodeNil() {
                deep = nil
            } else {
                deep = try deepDecoder.container(keyedBy: DeepKeys.self).superDecoder(forKey: .leaf)
                    .singleValueContainer().decode(String?.self)
            }
        }
        init(missingIsNil: Bool, nullIsNil: Bool, inner: Int?, deep: String?) {
            (self.missingIsNil, self.nullIsNil, self.inner, self.deep) = (missingIsNil, nullIsNil, inner, deep)
        }
    }

    @Test(arguments: [
        (#"{"null":null}"#, Nested(missingIsNil: true, nullIsNil: true, inner: nil, deep: nil)),
        (#"{"null":null,"inner":7,"deep":{}}"#, Nested(missingIsNil: true, nullIsNil: true, inner: 7, deep: nil)),
        (
            #"{"null":null,"inner":null,"deep":{"leaf":"x"}}"#,
            Nested(missingIsNil: true, nullIsNil: true, inner: nil, deep: "x")
        ),
    ])
    func nestedSuperDecodersOfMissingMembersAsFoundation(_ json: String, _ expected: Nested) throws {
        #expect(try Self.strata(Nested.self, json) == expected)
        #expect(try Self.foundation(Nested.self, json) == expected)
    }

    /// A value (not an optional) asked of a missing member's super decoder, or a container, is an error naming the
    /// member's path, as with Foundation.
    @Test func aValueOfAMissingSuperMemberIsAnErrorNamingItsPath() throws {
        struct Strict: Decodable {
            enum Keys: String, CodingKey { case outer, gone }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                let outer = try container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
                _ = try Int(from: outer.superDecoder(forKey: .gone))
            }
        }
        struct Keyed: Decodable {
            enum Keys: String, CodingKey { case gone }
            init(from decoder: any Decoder) throws {
                _ = try decoder.container(keyedBy: Keys.self).superDecoder().container(keyedBy: Keys.self)
            }
        }
        struct Unkeyed: Decodable {
            enum Keys: String, CodingKey { case gone }
            init(from decoder: any Decoder) throws {
                _ = try decoder.container(keyedBy: Keys.self).superDecoder(forKey: .gone).unkeyedContainer()
            }
        }
        for (json, path) in [(#"{"outer":{}}"#, ["outer", "gone"])] {
            let error = #expect(throws: DecodingError.self) { try Self.strata(Strict.self, json) }
            guard case .valueNotFound(_, let context)? = error else {
                Issue.record("not valueNotFound: \(String(describing: error))")
                continue
            }
            #expect(context.codingPath.map(\.stringValue) == path)
            #expect(throws: DecodingError.self) { try Self.foundation(Strict.self, json) }
        }
        #expect(throws: DecodingError.self) { try Self.strata(Keyed.self, "{}") }
        #expect(throws: DecodingError.self) { try Self.foundation(Keyed.self, "{}") }
        #expect(throws: DecodingError.self) { try Self.strata(Unkeyed.self, "{}") }
        #expect(throws: DecodingError.self) { try Self.foundation(Unkeyed.self, "{}") }
    }
}

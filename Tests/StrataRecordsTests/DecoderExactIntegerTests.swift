import Foundation
import Testing

@testable import StrataRecords

/// Integers are read from a number's digits, never through `Double` (found by the `record-body` fuzz target): a
/// text with a fraction or an exponent, or past Int64's range, was rounded to a neighbouring integer, so
/// `-9223372036854775809` read as `Int.min` and `9999999999999999.999989999` as `10000000000000000`.
@Suite("Records decoder: integers exactly, and a missing super member")
struct DecoderExactIntegerTests {
    struct Wide: Codable, Equatable {
        var i: Int?
        var i8: Int8?
        var u64: UInt64?
        var i64: Int64?
    }

    static func decode(_ json: String) throws -> Wide {
        try Array(json.utf8).withUnsafeBytes { try FastJSONDecoder.decode(Wide.self, from: $0) }
    }

    @Test(arguments: [
        (#"{"i":1.0}"#, Wide(i: 1)),
        (#"{"i":1e2}"#, Wide(i: 100)),
        (#"{"i":12.50e1}"#, Wide(i: 125)),
        (#"{"i":-0.0e5}"#, Wide(i: 0)),
        (#"{"i":0e9}"#, Wide(i: 0)),
        (#"{"i8":-1.28e2}"#, Wide(i8: -128)),
        (#"{"u64":1.8446744073709551615e19}"#, Wide(u64: UInt64.max)),
        (#"{"i64":-9223372036854775808}"#, Wide(i64: Int64.min)),
        (#"{"i64":-9.223372036854775808e18}"#, Wide(i64: Int64.min)),
        (#"{"i":14294967274407395.0}"#, Wide(i: 14_294_967_274_407_395)),
        (#"{"i":9007199254740993.0}"#, Wide(i: 9_007_199_254_740_993)),
    ])
    func aWholeNumberReadsExactly(_ json: String, _ expected: Wide) throws {
        #expect(try Self.decode(json) == expected)
    }

    @Test(arguments: [
        #"{"i":-9223372036854775809}"#, #"{"i":9223372036854775808}"#, #"{"i":9999999999999999.999989999}"#,
        #"{"i":1.5}"#, #"{"i":1e-1}"#, #"{"i":1e19}"#, #"{"i8":128}"#, #"{"i8":-1.29e2}"#,
        #"{"u64":-1}"#, #"{"u64":18446744073709551616}"#, #"{"i":275337203685477577.6}"#,
    ])
    func aNumberThatIsNotAnIntegerOfTheTypeIsRefusedNamingIt(_ json: String) throws {
        let error = #expect(throws: DecodingError.self) { try Self.decode(json) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("not dataCorrupted: \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("does not fit in"), "\(context.debugDescription)")
        #expect(context.codingPath.count == 1)
    }

    @Test func theWholeNumberCheckReadsDigitsNotDoubles() {
        func whole(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes(JSONIntegerText.isWhole) }
        #expect(whole("1.000") && whole("1e400") && whole("-0.0e-7") && whole("12.5e1") && whole("100e-2"))
        #expect(!whole("1.5") && !whole("1e-1") && !whole("123e-2") && !whole("9999999999999999.999989999"))
    }

    /// A record whose `init(from:)` asks for `superDecoder()` (or a key's) of an object without that member gets a
    /// decoder of `null`, as with Foundation's decoder; it used to get the object's own decoder (for `super`), so a
    /// base type decoded from the subclass's members.
    struct Derived: Decodable, Equatable {
        struct Base: Decodable, Equatable { var name: String }
        var name: String
        var base: Base?
        var baseIsNull: Bool
        enum Keys: String, CodingKey { case name, parent }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
            base = try? Base(from: container.superDecoder())
            baseIsNull = try container.superDecoder(forKey: .parent).singleValueContainer().decodeNil()
        }
        init(name: String, base: Base?, baseIsNull: Bool) {
            (self.name, self.base, self.baseIsNull) = (name, base, baseIsNull)
        }
    }

    @Test func aMissingSuperMemberIsNullAsWithFoundation() throws {
        let body = Array(#"{"name":"derived"}"#.utf8)
        let ours = try body.withUnsafeBytes { try FastJSONDecoder.decode(Derived.self, from: $0) }
        let theirs = try JSONDecoder().decode(Derived.self, from: Data(body))
        #expect(ours == Derived(name: "derived", base: nil, baseIsNull: true))
        #expect(ours == theirs)
        let withSuper = Array(#"{"name":"derived","super":{"name":"base"},"parent":null}"#.utf8)
        let read = try withSuper.withUnsafeBytes { try FastJSONDecoder.decode(Derived.self, from: $0) }
        #expect(read == Derived(name: "derived", base: .init(name: "base"), baseIsNull: true))
    }
}

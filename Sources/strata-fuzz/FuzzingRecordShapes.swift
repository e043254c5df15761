// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    @testable import StrataRecords

    /// The typed record shapes the `record-body` fuzz target decodes every input into (``RecordsFuzzing/recordBody(_:)``):
    /// each exercises another path of ``FastJSONDecoder`` (its per-type fast paths, its keyed and unkeyed containers,
    /// a hand-written `init(from:)`), and each is `Equatable`, so that what it decodes can be compared with what
    /// Foundation's `JSONDecoder` decodes from the same bytes.
    protocol FuzzingRecordShape: Codable, Equatable, Sendable {
        /// Whether this value, decoded by Strata, and `other`, decoded by Foundation from the same bytes, say the same.
        /// Equality, but for a `Float`, which Strata reads through `Double` and Foundation straight from the digits:
        /// the two roundings may land one step apart.
        func agrees(with other: Self) -> Bool
    }

    extension FuzzingRecordShape {
        func agrees(with other: Self) -> Bool { self == other }
    }

    /// Whether two `Float`s read from the same digits by two parsers agree: equal, or one step apart (a decimal
    /// rounded to `Double` first, then to `Float`, may round the other way).
    func floatsAgree(_ one: Float, _ other: Float) -> Bool {
        one == other || one.nextUp == other || one.nextDown == other
    }

    /// A record as most are: strings, an integer, an array of strings, an optional.
    struct FuzzPerson: FuzzingRecordShape {
        var id: String
        var name: String
        var email: String
        var age: Int
        var tags: [String]
        var nickname: String?
    }

    /// Every integer width, signed and unsigned, each read through its own keyed-container requirement.
    struct FuzzIntegers: FuzzingRecordShape {
        var i: Int
        var i8: Int8
        var i16: Int16
        var i32: Int32
        var i64: Int64
        var u: UInt
        var u8: UInt8
        var u16: UInt16
        var u32: UInt32
        var u64: UInt64
    }

    /// Floating point and booleans, alone, in arrays and optional.
    struct FuzzNumbers: FuzzingRecordShape {
        var f: Float
        var d: Double
        var flag: Bool
        var doubles: [Double]
        var floats: [Float]
        var ints: [Int]
        var flags: [Bool]
        var maybeFloat: Float?

        func agrees(with other: Self) -> Bool {
            floatsAgree(f, other.f) && d == other.d && flag == other.flag && doubles == other.doubles
                && floats.count == other.floats.count && zip(floats, other.floats).allSatisfy(floatsAgree)
                && ints == other.ints && flags == other.flags
                && (maybeFloat == nil) == (other.maybeFloat == nil)
                && floatsAgree(maybeFloat ?? 0, other.maybeFloat ?? 0)
        }
    }

    /// Every member optional: absent and `null` both decode to `nil`.
    struct FuzzOptionals: FuzzingRecordShape {
        var s: String?
        var i: Int?
        var u8: UInt8?
        var b: Bool?
        var d: Double?
        var a: [Int]?
        var strings: [String?]?
        var inner: FuzzInner?
    }

    /// The element of ``FuzzNested``.
    struct FuzzInner: FuzzingRecordShape {
        var name: String
        var value: Int?
        var flags: [Bool]
    }

    /// Nested structs, arrays of structs and arrays of arrays.
    struct FuzzNested: FuzzingRecordShape {
        var inner: FuzzInner
        var items: [FuzzInner]
        var matrix: [[Int]]
        var people: [FuzzPerson]?
    }

    /// Dictionaries: string keys, through the keyed container's `allKeys`.
    struct FuzzMaps: FuzzingRecordShape {
        var counts: [String: Int]
        var series: [String: [Double]]
        var nested: [String: [String: String]]?
    }

    /// The Foundation types both coders special-case: `Data` as base64, `Date` as seconds since 2001, `URL` as a
    /// string.
    struct FuzzFoundationTypes: FuzzingRecordShape {
        var data: Data
        var date: Date
        var url: URL
        var dates: [Date]?
    }

    /// A string-valued enum.
    enum FuzzColor: String, Codable, Equatable {
        case red, green, blue
        case named = "caf\u{E9} \"au lait\""
    }

    /// An integer-valued enum.
    enum FuzzLevel: Int, Codable, Equatable {
        case low = 1
        case high = 2
        case negative = -7
    }

    /// An enum with associated values: synthesized `Codable` reads one member named after the case (`allKeys`).
    enum FuzzFigure: Codable, Equatable {
        case circle(radius: Double)
        case rectangle(width: Int, height: Int)
        case label(String)
        case empty
    }

    /// Enums, and member names that need escapes or are not ASCII (matched by their exact scalars).
    struct FuzzEnums: FuzzingRecordShape {
        var color: FuzzColor
        var level: FuzzLevel
        var figure: FuzzFigure
        var figures: [FuzzFigure]
        var colors: [FuzzColor]?
        var accented: String?
        var quoted: String?

        enum CodingKeys: String, CodingKey {
            case color, level, figure, figures, colors
            case accented = "caf\u{E9}"
            case quoted = "a \"quoted\"\\name\n"
        }
    }

    /// A value nested as deeply as records get: an object of arrays of itself.
    struct FuzzTree: FuzzingRecordShape {
        var children: [FuzzTree]
        var leaf: Int?
    }

    /// The members a ``FuzzCustom`` knows; any other name is kept as an extra.
    enum FuzzCustomKey: String, CodingKey, CaseIterable {
        case kind, header, values, note, parent
        case `super`
    }

    /// A member name of any spelling.
    struct FuzzAnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The header of a ``FuzzCustom``, read through `nestedContainer(keyedBy:forKey:)`.
    struct FuzzHeader: Equatable {
        var version: Int
        var tag: String?
    }

    /// Whether a member is there, `null`, or has a value: what `contains` and `decodeNil(forKey:)` tell apart.
    enum FuzzPresence: Equatable {
        case absent
        case null
        case value(String)
    }

    /// A record with a hand-written `init(from:)` using the rest of the keyed and unkeyed container API: `allKeys`,
    /// `contains`, `decodeNil(forKey:)`, `nestedContainer`, `nestedUnkeyedContainer` with `decodeNil()` and
    /// `isAtEnd`, `superDecoder()` and `superDecoder(forKey:)`, and a single-value container.
    struct FuzzCustom: FuzzingRecordShape {
        var kind: String
        var header: FuzzHeader
        var values: [Int?]
        var note: FuzzPresence
        var parent: FuzzLevel
        /// From the `super` member, when there is one (its absence is read differently by the two decoders: see
        /// ``RecordsFuzzing/recordBody(_:)``).
        var base: FuzzPerson?
        /// The names of the members it does not know, sorted (the order `allKeys` lists them in is not specified).
        var extras: [String]

        enum HeaderKey: String, CodingKey { case version, tag }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: FuzzCustomKey.self)
            kind = try container.decode(String.self, forKey: .kind)
            let header = try container.nestedContainer(keyedBy: HeaderKey.self, forKey: .header)
            self.header = FuzzHeader(
                version: try header.decode(Int.self, forKey: .version),
                tag: try header.decodeIfPresent(String.self, forKey: .tag))
            var values = try container.nestedUnkeyedContainer(forKey: .values)
            self.values = []
            while !values.isAtEnd {
                self.values.append(try values.decodeNil() ? nil : try values.decode(Int.self))
            }
            if !container.contains(.note) {
                note = .absent
            } else if try container.decodeNil(forKey: .note) {
                note = .null
            } else {
                note = .value(try container.decode(String.self, forKey: .note))
            }
            parent = try FuzzLevel(from: container.superDecoder(forKey: .parent))
            // Without a `super` member, both decoders hand a decoder of null: a person never reads from it.
            base =
                container.contains(.super)
                ? try FuzzPerson(from: container.superDecoder())
                : try? FuzzPerson(from: container.superDecoder())
            let known = Set(FuzzCustomKey.allCases.map(\.stringValue))
            extras = try decoder.container(keyedBy: FuzzAnyKey.self).allKeys.map(\.stringValue)
                .filter { !known.contains($0) }.sorted()
        }

        func encode(to encoder: any Encoder) throws {
            // One container for every member, the extras' names included: a second keyed container on the same
            // encoder is not something every encoder merges into the first.
            var container = encoder.container(keyedBy: FuzzAnyKey.self)
            func key(_ known: FuzzCustomKey) -> FuzzAnyKey { FuzzAnyKey(stringValue: known.stringValue) }
            try container.encode(kind, forKey: key(.kind))
            var header = container.nestedContainer(keyedBy: HeaderKey.self, forKey: key(.header))
            try header.encode(self.header.version, forKey: .version)
            try header.encodeIfPresent(self.header.tag, forKey: .tag)
            var values = container.nestedUnkeyedContainer(forKey: key(.values))
            for value in self.values {
                if let value { try values.encode(value) } else { try values.encodeNil() }
            }
            switch note {
            case .absent: break
            case .null: try container.encodeNil(forKey: key(.note))
            case .value(let text): try container.encode(text, forKey: key(.note))
            }
            try container.encode(parent, forKey: key(.parent))
            try container.encodeIfPresent(base, forKey: key(.super))
            for name in extras { try container.encodeNil(forKey: FuzzAnyKey(stringValue: name)) }
        }
    }

    /// A body that is an array of records.
    extension Array: FuzzingRecordShape where Element: FuzzingRecordShape {}

    /// A body that is a dictionary of integers.
    extension Dictionary: FuzzingRecordShape where Key == String, Value == Int {}
#endif

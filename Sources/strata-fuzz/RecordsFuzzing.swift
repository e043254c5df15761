// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    import StrataCore
    @testable import StrataRecords

    /// What the fuzz targets call: the JSON Lines import's parsing and validation, on hostile lines.
    enum RecordsFuzzing {
        /// Splits into lines and decodes each as an import would (parse, then decode as a record); a line that
        /// parses must also re-serialize and parse to the same value.
        static func jsonLines(_ data: Data) {
            for line in data.split(separator: 0x0A) {
                let bytes = [UInt8](line)
                _ = try? bytes.withUnsafeBytes { try FastJSONDecoder.decode(AnyRecord.self, from: $0) }
                guard let value = try? bytes.withUnsafeBytes({ try JSONValue.parse($0) }) else { continue }
                let again = value.serialized()
                guard let reparsed = try? again.withUnsafeBytes({ try JSONValue.parse($0) }),
                    reparsed.normalized == value.normalized
                else {
                    fatalError("JSON did not survive a round trip: \(value)")
                }
            }
        }
    }

    extension JSONValue {
        /// The value with integral numbers as integers: `1.5e3` and `1500` are the same JSON number.
        var normalized: JSONValue {
            switch self {
            case .number(let number) where number == number.rounded() && abs(number) < 9e15: .integer(Int64(number))
            case .array(let items): .array(items.map(\.normalized))
            case .object(let members): .object(members.mapValues(\.normalized))
            default: self
            }
        }
    }

    extension RecordsFuzzing {
        /// The shapes every input is decoded into.
        static let recordShapes: [any FuzzingRecordShape.Type] = [
            FuzzPerson.self, FuzzIntegers.self, FuzzNumbers.self, FuzzOptionals.self, FuzzNested.self, FuzzMaps.self,
            FuzzFoundationTypes.self, FuzzEnums.self, FuzzTree.self, FuzzCustom.self, [FuzzPerson].self,
            [String: Int].self,
        ]

        /// Decodes the bytes as a record body with ``FastJSONDecoder`` into each of the typed shapes of
        /// `FuzzingRecordShapes.swift`, and checks, for each:
        ///
        /// - it does not crash, and what it throws is a `DecodingError` or a ``JSONParseError``;
        /// - Foundation's `JSONDecoder`, on the same bytes and shape, decodes a value that
        ///   ``FuzzingRecordShape/agrees(with:)`` Strata's, or both refuse, or they differ in a deliberate way below;
        /// - a body Strata decodes, ``JSONValue``'s parser (not the tape's) accepts too, but for what the tape checks
        ///   only in a value that is read: a string's UTF-8 and a number's range (``checkedWhenRead``);
        /// - what Strata decodes, ``FastJSONEncoder`` encodes and ``FastJSONDecoder`` decodes again to an equal value.
        ///
        /// The differences from Foundation, found by running this target, and why they are accepted (anything else
        /// stops the fuzzer; ``differences(_:)`` tells them from the bytes, not from either decoder's error):
        ///
        /// - **Repeated member names** (Strata refuses): an object naming a member twice (the same scalars), anywhere
        ///   in the body. Foundation keeps one of them; a record whose stored JSON SQLite's functions read one way and
        ///   a decoder another could match a query on one value and read back with the other.
        /// - **Member names by their exact scalars** (any outcome): Strata tells `"caf\u{E9}"` from `"cafe\u{301}"`,
        ///   as the JSON text and SQLite's JSON functions do; Foundation compares names as `String`s, equal when
        ///   canonically equivalent. Only a body with a member name not in Unicode normalization form C can tell.
        /// - **Encodings** (Strata refuses): Strata reads UTF-8 without a byte order mark, as RFC 8259 requires of
        ///   JSON exchanged between systems; Foundation also takes a byte order mark and UTF-16 or UTF-32 text.
        /// - **Not strict JSON** (Strata refuses): Strata validates the whole body (strict RFC 8259) before decoding;
        ///   Foundation checks the syntax of a number (`01`, `1.`, `-`) and the escapes of a string (`\q`, a lone
        ///   surrogate) only when it decodes them, so it takes them in members no shape reads, and it takes raw control
        ///   characters in strings and a comma before `]`. ``JSONValue``'s parser, not the tape's, decides.
        /// - **Nesting** (Strata refuses): a body nested deeper than 512 levels anywhere, members not decoded included.
        /// - **Rounded numbers** (Strata decodes): Strata reads a number as the nearest `Double` (a `Float`: that
        ///   `Double` rounded to `Float`, as ``FastJSONEncoder`` writes a `Float` as a `Double`), so non-zero digits
        ///   that round to zero read as zero and a `Float` beyond its range as an infinity (which cannot be encoded
        ///   again); Foundation refuses both as not valid JSON.
        /// - **A fraction into an integer** (Strata refuses): a number that is not whole is not an integer, whatever
        ///   its size; Foundation's decoder drops the fraction of a dictionary's value (`{"a": 2.5}` as `[String: Int]`
        ///   reads as 2). Integers are read from their digits, never through `Double`, so a long or fractional text is
        ///   never rounded to a neighbouring integer (``JSONIntegerText``).
        /// - **Large numbers with a fraction or an exponent** (any outcome): `1.8446744073709551615e19` is `UInt64.max`
        ///   and `9007199254740993.0` an `Int`; Foundation's decoder reads such a text through `Double` when it wants an
        ///   integer (refusing the first as "not valid JSON", rounding the second), Strata from its digits.
        /// - **A zero with an exponent** (Strata decodes): `0e9` is valid JSON (RFC 8259's grammar, and
        ///   `JSONSerialization` takes it); Foundation's decoder refuses it.
        /// - **Member names of invalid UTF-8** (Strata decodes): the tape checks a string's UTF-8 when the string's
        ///   value is read (ASCII needs no check, and most strings are ASCII), not while it finds the string's end, and
        ///   reads a member name of invalid UTF-8 with U+FFFD in place of the bad bytes; Foundation refuses such a
        ///   name. Two such names in one object may read as the same name, which cannot be encoded again. (A string
        ///   value of invalid UTF-8 both take when no shape reads it, and both refuse when one does.)
        ///
        /// `superDecoder()` of an object without a `super` member gives a decoder of `null`, as Foundation's does
        /// (``NullDecoder``; it returned the object's own decoder before the fuzzer's first run).
        static func recordBody(_ data: Data) {
            let bytes = [UInt8](data)
            for shape in recordShapes { check(shape, bytes) }
            checkReader(FuzzReaderPerson.self, bytes)
            checkReader(FuzzReaderInner.self, bytes)
        }

        /// A ``RecordDecodable`` read of the bytes and a `Codable` one come to the same: the same record, or errors
        /// of the same code on the same field (or the same parse error).
        private static func checkReader<Shape: RecordDecodable & Equatable>(_ shape: Shape.Type, _ bytes: [UInt8]) {
            func read<T: Decodable>(_ type: T.Type) -> Result<T, StorageError> {
                Result {
                    try bytes.withUnsafeBytes { try RecordCoder.decode(type, from: $0, collection: "fuzz", id: "f") }
                }.mapError { $0 as! StorageError }
            }
            /// The error less the record type's name: its code and the rest of its message.
            func summary(_ error: StorageError) -> String {
                "\(error.code): " + (error.message.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? "")
            }
            let reader = read(Shape.self)
            let codable = read(FuzzThroughCodable<Shape>.self).map(\.value)
            switch (reader, codable) {
            case (.success(let one), .success(let other)) where one == other: return
            case (.failure(let one), .failure(let other)) where one.code == other.code:
                // A type mismatch names the field first (the rest may name the reader's or Codable's type).
                let field = { (error: StorageError) in summary(error).split(separator: "'").dropFirst().first }
                if one.code != .typeMismatch ? summary(one) == summary(other) : field(one) == field(other) { return }
            default: break
            }
            let hex = bytes.prefix(512).map { String(format: "%02x", $0) }.joined()
            fatalError("record-body, \(Shape.self): the reader gave \(reader), Codable \(codable); input (hex): \(hex)")
        }

        private static func check<Shape: FuzzingRecordShape>(_ shape: Shape.Type, _ bytes: [UInt8]) {
            func fail(_ what: String) -> Never {
                let hex = bytes.prefix(512).map { String(format: "%02x", $0) }.joined()
                fatalError("record-body, \(Shape.self): \(what); input (\(bytes.count) bytes, hex): \(hex)")
            }
            let strata = Result { try bytes.withUnsafeBytes { try FastJSONDecoder.decode(Shape.self, from: $0) } }
            if case .failure(let error) = strata, !(error is DecodingError || error is JSONParseError) {
                fail("Strata threw an untyped error: \(error)")
            }
            let foundation = Result { try JSONDecoder().decode(Shape.self, from: Data(bytes)) }
            switch (strata, foundation) {
            case (.success(let ours), .success(let theirs)):
                guard
                    ours.agrees(with: theirs)
                        || !differences(bytes).isDisjoint(with: [.nameNotInNormalFormC, .largeWithFractionOrExponent])
                else {
                    fail("Strata decoded \(ours), Foundation \(theirs)")
                }
            case (.success(let ours), .failure(let error)):
                guard
                    !differences(bytes).isDisjoint(with: [
                        .nameNotInNormalFormC, .numberRounded, .nameNotUTF8, .largeWithFractionOrExponent,
                        .zeroWithExponent,
                    ])
                else {
                    fail("Strata decoded \(ours), Foundation refused: \(describe(error))")
                }
            case (.failure(let error), .success(let theirs)):
                guard
                    !differences(bytes).isDisjoint(with: [
                        .encoding, .notStrictJSON, .nameNotInNormalFormC, .fractionalNumber,
                        .largeWithFractionOrExponent,
                    ])
                else {
                    fail("Strata refused (\(error)), Foundation decoded \(theirs)")
                }
            case (.failure, .failure): break
            }
            guard case .success(let value) = strata else { return }
            do {
                _ = try bytes.withUnsafeBytes { try JSONValue.parse($0) }
            } catch let error as JSONParseError where Self.checkedWhenRead.contains(error.message) {
                // The tape checks a string's UTF-8 and a number's range when the value is read, not before.
            } catch {
                fail("Strata decoded \(value) from a body its tree parser refuses: \(error)")
            }
            let encoded: [UInt8]
            do {
                encoded = try FastJSONEncoder.encode(value)
            } catch {
                // A Float beyond its range reads as an infinity, which JSON cannot hold; two member names of invalid
                // UTF-8 may read as the same name, which one object cannot hold twice.
                guard !differences(bytes).isDisjoint(with: [.numberRounded, .nameNotUTF8]) else {
                    fail("\(value) could not be encoded again: \(error)")
                }
                return
            }
            let text = String(decoding: encoded, as: UTF8.self)
            do {
                let again = try encoded.withUnsafeBytes { try FastJSONDecoder.decode(Shape.self, from: $0) }
                guard again == value else { fail("\(value) encoded as \(text) read back as \(again)") }
            } catch {
                fail("\(value) encoded as \(text) could not be read back: \(error)")
            }
        }

        /// A deliberate difference from Foundation's `JSONDecoder` (see ``recordBody(_:)``).
        enum Difference {
            /// Not UTF-8, or UTF-8 after a byte order mark.
            case encoding
            /// Not strict RFC 8259 JSON by ``JSONValue``'s parser (``checkedWhenRead`` included).
            case notStrictJSON
            /// A member name not in Unicode normalization form C.
            case nameNotInNormalFormC
            /// A member name whose bytes are not UTF-8.
            case nameNotUTF8
            /// A number whose digits are not zero but that rounds to zero, or to beyond `Float`'s range.
            case numberRounded
            /// A number that is not whole (`1.5`, `1e-1`): Strata refuses it as an integer, where Foundation's decoder
            /// drops the fraction in some places (a dictionary's values).
            case fractionalNumber
            /// A number with a fraction or an exponent and a magnitude of 2^53 or more, which Foundation's decoder
            /// reads as an integer through `Double` (rounded, or refused as "not valid JSON"), Strata from its digits.
            case largeWithFractionOrExponent
            /// A zero with an exponent (`0e9`): valid JSON, which Foundation's decoder refuses.
            case zeroWithExponent
        }

        /// What the tree parser refuses and the tape checks only in a value that is read.
        static let checkedWhenRead: Set<String> = ["invalid UTF-8 in a string", "number out of range"]

        /// The deliberate differences the body shows, decided with ``JSONValue``'s parser, which is not the tape's, and
        /// by looking at each number's text.
        static func differences(_ bytes: [UInt8]) -> Set<Difference> {
            var found: Set<Difference> = []
            let marks: [[UInt8]] = [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
            if marks.contains(where: { bytes.starts(with: $0) }) || bytes.prefix(4).contains(0) {
                found.insert(.encoding)
            }
            if (try? bytes.withUnsafeBytes({ try JSONValue.parse($0) })) == nil { found.insert(.notStrictJSON) }
            let (numbers, names) = tokens(bytes)
            for name in names {
                guard String(validating: name, as: UTF8.self) != nil else {
                    found.insert(.nameNotUTF8)
                    continue
                }
                // The name's scalars, its escapes resolved by reading it as a JSON string.
                let quoted = [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\"")]
                guard case .string(let text)? = try? quoted.withUnsafeBytes({ try JSONValue.parse($0) }) else {
                    continue
                }
                if !text.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars) {
                    found.insert(.nameNotInNormalFormC)
                }
            }
            for number in numbers {
                // What Strata reads: the nearest Double, and for a Float, that Double rounded.
                guard let double = Double(String(decoding: number, as: UTF8.self)) else { continue }
                let float = Float(double)
                let mantissa = number.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
                let isZero = !mantissa.contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
                if !double.isFinite || !float.isFinite || (!isZero && (double == 0 || float == 0)) {
                    found.insert(.numberRounded)
                }
                if !Array(number).withUnsafeBytes(JSONIntegerText.isWhole) { found.insert(.fractionalNumber) }
                let plain = !number.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
                if !plain, abs(double) >= 0x1p53 { found.insert(.largeWithFractionOrExponent) }
                if number.drop(while: { $0 == UInt8(ascii: "-") }).starts(with: [UInt8(ascii: "0")]),
                    number.dropFirst(number.first == UInt8(ascii: "-") ? 2 : 1).first.map({ $0 | 0x20 })
                        == UInt8(ascii: "e")
                {
                    found.insert(.zeroWithExponent)
                }
            }
            return found
        }

        /// The text of every number, and of every member name (between its quotes), found by a scan that knows only
        /// strings: a number is each run of number characters outside a string that starts with `-` or a digit, a name
        /// each string followed by a colon.
        static func tokens(_ bytes: [UInt8]) -> (numbers: [ArraySlice<UInt8>], names: [ArraySlice<UInt8>]) {
            var (numbers, names): ([ArraySlice<UInt8>], [ArraySlice<UInt8>]) = ([], [])
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let start = index + 1
                    index = start
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    let text = bytes[start..<min(index, bytes.count)]
                    index += 1
                    let after = bytes[min(index, bytes.count)...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                    if after == UInt8(ascii: ":") { names.append(text) }
                } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    let start = index
                    while index < bytes.count, Array("+-.0123456789eE".utf8).contains(bytes[index]) { index += 1 }
                    numbers.append(bytes[start..<index])
                } else {
                    index += 1
                }
            }
            return (numbers, names)
        }

        /// The error, with the underlying error of a `DecodingError` (Foundation's says which number it refused).
        static func describe(_ error: any Error) -> String {
            guard case DecodingError.dataCorrupted(let context) = error, let underlying = context.underlyingError else {
                return "\(error)"
            }
            return "\(error) (\(underlying))"
        }
    }
#endif

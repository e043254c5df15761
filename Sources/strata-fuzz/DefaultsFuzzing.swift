// Built in debug and by Scripts/fuzz.sh only: see FuzzTargets.swift.
#if DEBUG || FUZZING
    import Foundation
    import StrataCore
    @testable import StrataDefaults

    /// What the fuzz target calls: the plist readers on hostile documents, raw or generated.
    enum DefaultsFuzzing {
        /// Reads `data` as a property list and checks what was read. An input whose first byte is `0xFF` instead
        /// drives ``document(from:)``, which builds a binary plist with shared references, cycles and twin keys.
        static func plist(_ data: Data) {
            let document = data.first == 0xFF ? self.document(from: data.dropFirst()) : data
            check(document)
        }

        /// A value that was read is within the limits, and survives a binary round trip (compared as XML, whose
        /// dictionaries are sorted and whose NaNs are text). A few dozen bytes may legitimately expand to the 16 MiB
        /// limit; encoding that takes seconds, so the round trip is checked on values up to 256 KiB expanded.
        static func check(_ document: Data) {
            guard let value = try? PropertyListFormat.decode(document) else { return }
            let footprint = value.footprint(upToNodes: .max)
            guard footprint.isWithin(.default) else { fatalError("a value over the limits was read") }
            guard footprint.size <= 256 << 10 else { return }
            let again = try? PropertyListFormat.decode(BinaryPropertyList.encode(value))
            guard let again, XMLPropertyList.encode(again) == XMLPropertyList.encode(value) else {
                fatalError("a value did not survive a binary round trip")
            }
            _ = try? PropertyListFormat.decode(XMLPropertyList.encode(value))
            _ = value.hashValue
        }

        /// Strings that come in canonically equivalent pairs, to make twin keys.
        static let twins = [
            "caf\u{E9}", "cafe\u{301}", "\u{C5}", "A\u{30A}", "\u{212B}", "k", "\u{1E69}", "s\u{323}\u{307}",
        ]

        /// Builds a `bplist00` document from fuzz bytes: each step adds one object (a scalar, a twin string, or a
        /// container whose references may point anywhere, before or after it, itself included).
        static func document(from bytes: Data) -> Data {
            var table = BinaryPropertyList.ObjectTable()
            var input = bytes.makeIterator()
            func next() -> Int { Int(input.next() ?? 0) }
            func reference() -> Int { next() % (table.count + 3) }
            while let step = input.next(), table.count < 4096 {
                switch step % 6 {
                case 0: table.add(.integer(Int64(next()) - 128))
                case 1: table.add(.string(twins[next() % twins.count]))
                case 2: table.addArray((0..<(next() % 9)).map { _ in reference() })
                case 3: table.addDictionary((0..<(next() % 6)).map { _ in (reference(), reference()) })
                case 4:
                    table.add(step & 0x80 == 0 ? .real(Double(next()) / 7) : .data(Data(repeating: 0, count: next())))
                default: table.addArray(Array(repeating: max(table.count - 1, 0), count: next() % 17))
                }
            }
            if table.count == 0 { table.add(.bool(true)) }
            return table.encoded(top: table.count - 1)
        }
    }
#endif

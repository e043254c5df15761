import Foundation
import StrataCore
import StrataRecords
import StrataSQLite
import StrataTestSupport

/// Hostile classes for SQLite and JSON: foreign SQLite files left byte-for-byte unchanged, NFC/NFD twin keys in JSON objects.
let recordsHostileClasses: [HostileFormat] = [
    HostileFormat(
        name: "foreign SQLite file", versionOffsets: [],
        make: { _ in Data() },
        feed: { data, root in
            let path = root + "/foreign-\(UInt32.random(in: 0...UInt32.max)).sqlite"
            try data.write(to: URL(fileURLWithPath: path))
            defer {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            let before = ForeignRecordFile.snapshot(path)
            // Only a file that was a Strata store (truncated, newer or scribbled on) may still open.
            let wasStrata = data.range(of: Data("strata_meta".utf8)) != nil
            var readOnly = RecordsConfiguration()
            readOnly.isReadOnly = true
            var refused = true
            for configuration in [readOnly, RecordsConfiguration()] {
                do {
                    let store = try RecordStore(path: path, configuration: configuration)
                    guard wasStrata else { throw WrongValue(description: "a foreign file was opened as a store") }
                    // Scribbling may leave a Strata store readable: then it must read whole or fail typed.
                    _ = try store.verify()
                    _ = try store.collection(BatchItem.self, named: "items").fetch()
                    refused = false
                } catch let error as StorageError {
                    let expected: [StorageError.Code] = [.notAStore, .corrupt, .unsupportedVersion]
                    guard expected.contains(error.code) else {
                        throw WrongValue(description: "refused with \(error.code): \(error)")
                    }
                    guard ForeignRecordFile.snapshot(path) == before else {
                        throw WrongValue(description: "a refused file was changed on disk")
                    }
                }
            }
            return refused
        },
        generate: { generator, index, root in
            // Every kind in turn (other programs' schemas in both journal modes, not SQLite at all, damaged,
            // truncated or newer Strata stores), and every fourth one a foreign database with a page scribbled on.
            let kinds = ForeignRecordFile.allCases
            let path = root + "/generated.sqlite"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let kind = kinds[index % kinds.count]
            try kind.write(to: path, seed: generator.next())
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            if index % 4 == 3, bytes.count >= 1024, bytes.starts(with: Data("SQLite format 3\0".utf8)) {
                let pageSize = max(512, Int(bytes[16]) << 8 | Int(bytes[17]))
                let page = Int.random(in: 0..<max(1, bytes.count / pageSize), using: &generator)
                let start = page * pageSize + Int.random(in: 0..<(pageSize - 16), using: &generator)
                for offset in start..<min(bytes.count, start + Int.random(in: 1...16, using: &generator)) {
                    bytes[offset] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            return bytes
        }),
    HostileFormat(
        name: "JSON twin keys", versionOffsets: [],
        make: { _ in Data() },
        feed: { data, root in
            let file = root + "/twins-\(UInt32.random(in: 0...UInt32.max)).jsonl"
            try data.write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let store = try RecordStore(path: root + "/twins.sqlite")
            let name = "c\(UInt32.random(in: 0...UInt32.max))"
            let collection = try store.collection(AnyRecord.self, named: name)
            _ = try collection.importJSONLines(from: file)
            for record in try collection.fetch() { try TwinKeyObject.check(record.body) }
            return false
        },
        generate: { generator, _, _ in
            var lines: [String] = []
            for line in 0..<Int.random(in: 1...6, using: &generator) {
                lines.append(TwinKeyObject.line(id: "r\(line)", generator: &generator))
            }
            return Data(lines.joined(separator: "\n").utf8)
        }),
]

/// JSON objects whose member names come in canonically equivalent pairs (composed and decomposed, raw or
/// `\u`-escaped), each object listing its own names in a `names` array (array elements are never merged), so
/// the reader can be checked against the generator without trusting the code under test.
enum TwinKeyObject {
    static let twins: [(String, String)] = [
        ("\u{E9}", "e\u{301}"), ("\u{F1}", "n\u{303}"), ("\u{C5}", "A\u{30A}"), ("\u{FC}", "u\u{308}"),
        ("\u{1EC7}", "e\u{323}\u{302}"), ("\u{212B}", "\u{C5}"), ("\u{AC00}", "\u{1100}\u{1161}"),
    ]

    static func line(id: String, generator: inout Seeded) -> String {
        "{\"id\":\"\(id)\"," + members(depth: 0, generator: &generator).dropFirst()
    }

    /// An object's text, opening brace included: twin names, a nested object now and then, and `names`.
    static func members(depth: Int, generator: inout Seeded) -> String {
        var names: [String] = []
        var parts: [String] = []
        for index in 0..<Int.random(in: 1...4, using: &generator) {
            let pair = twins[Int.random(in: 0..<twins.count, using: &generator)]
            let prefix = "k\(index)"
            for (offset, spelling) in [pair.0, pair.1].enumerated() {
                let name = prefix + spelling
                names.append(name)
                let value =
                    depth < 2 && Int.random(in: 0..<4, using: &generator) == 0
                    ? members(depth: depth + 1, generator: &generator) : "\(index * 2 + offset)"
                parts.append("\(quoted(name, escaped: Bool.random(using: &generator))):\(value)")
            }
        }
        parts.shuffle(using: &generator)
        let list = names.map { quoted($0, escaped: false) }.joined(separator: ",")
        return "{" + (parts + ["\"names\":[\(list)]"]).joined(separator: ",") + "}"
    }

    static func quoted(_ text: String, escaped: Bool) -> String {
        guard escaped else { return "\"\(text)\"" }
        var out = "\""
        for unit in text.utf16 {
            out += unit < 0x80 ? String(UnicodeScalar(UInt8(unit))) : String(format: "\\u%04x", unit)
        }
        return out + "\""
    }

    /// Checks that `value`, and every object in it, has exactly the members its `names` array lists.
    static func check(_ value: JSONValue) throws {
        guard case .object(let members) = value else { return }
        if case .array(let listed)? = members["names"] {
            let expected = Set(listed.compactMap { if case .string(let name) = $0 { ExactString(name) } else { nil } })
            let found = Set(members.keys.filter { $0 != "names" && $0 != "id" })
            guard found == expected, listed.count == expected.count else {
                throw WrongValue(description: "members \(found.sorted()) read back, \(expected.sorted()) written")
            }
        }
        for member in members.values { try check(member) }
    }
}

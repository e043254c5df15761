import Foundation
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataRecords

/// JSON nests at most 512 levels (``JSONParser/maximumDepth``: the top value at depth 0, the deepest at 511); the
/// readers refuse anything deeper with a typed error, and stop there, so no parse recurses past it. The writer
/// accepted a record nested deeper, which every read of it then refused as `corrupt`.
@Suite("Records: nesting at the readers' depth limit")
struct DeepRecordTests {
    /// A record whose member `deep` holds an integer inside `levels` arrays: the integer lies at depth
    /// `levels + 1`.
    static func record(_ id: String, levels: Int) throws -> AnyRecord {
        var value = JSONValue.integer(1)
        for _ in 0..<levels { value = .array([value]) }
        return try AnyRecord(body: .object(["id": .string(id), "deep": value]))
    }

    /// The deepest record is stored and read back; one level deeper (and far deeper: the encoder stops at the
    /// limit) is refused with `invalid-argument` when written, and nothing is stored.
    @Test(arguments: RecordEngineKind.available)
    func theDeepestRecordWrittenIsReadBackAndADeeperOneIsRefused(_ kind: RecordEngineKind) throws {
        let location = try RecordStoreLocation(kind)
        let records = try location.open().collection(AnyRecord.self, named: "deep")
        let deepest = try Self.record("deepest", levels: JSONParser.maximumDepth - 2)
        try records.insert(deepest)
        #expect(try records.get(id: "deepest") == deepest)
        for levels in [JSONParser.maximumDepth - 1, 5_000] {
            let error = #expect(throws: StorageError.self) {
                try records.insert(try Self.record("deeper", levels: levels))
            }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.message.contains("nests 512 levels deep") == true, "\(String(describing: error))")
        }
        #expect(try records.get(id: "deeper") == nil)
        #expect(try records.count() == 1)
    }

    /// Text nested 4,000 to 100,000 levels deep is refused by each reader with a typed error at the limit: the
    /// tree parser, the tape (a typed decode), the exact-value reader and a JSON Lines import.
    @Test(arguments: [JSONParser.maximumDepth, 4_000, 100_000])
    func deeperTextIsRefusedByEveryReader(levels: Int) throws {
        let text =
            #"{"id":"x","deep":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
            + "}"
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        let bytes = Array(text.utf8)
        #expect(throws: JSONParseError.self) {
            try bytes.withUnsafeBytes { try FastJSONDecoder.decode(AnyRecord.self, from: $0) }
        }
        #expect(throws: JSONParseError.self) {
            try bytes.withUnsafeBytes { try JSONExactValue.fields([["deep"]], in: $0) }
        }
        let location = try RecordStoreLocation(.sqlite)
        let file = location.directory.appending("deep.jsonl")
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let records = try location.open().collection(AnyRecord.self, named: "imported")
        let error = #expect(throws: StorageError.self) { try records.importJSONLines(from: file) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("nesting") == true, "\(String(describing: error))")
        #expect(try records.count() == 0)
    }

    /// A value built in code deeper than any reader accepts is written (`description`, `serialized()`) without
    /// recursion: 2,000 levels on a 1 MiB stack, which writing one frame a level overflowed. (Swift releases the
    /// value itself one level at a time: at 5,000 levels that alone overflows this stack.)
    @Test func aValueOfAnyDepthIsSerializedWithoutRecursion() throws {
        let levels = 2_000
        let text = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var value = JSONValue.object(["k": .string("v")])
            for index in 0..<levels {
                value = index.isMultiple(of: 2) ? .array([value, .null]) : .object(["a": value])
            }
            text.withLock { $0 = value.description }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        done.wait()
        var expected = #"{"k":"v"}"#
        for index in 0..<levels {
            expected = index.isMultiple(of: 2) ? "[" + expected + ",null]" : #"{"a":"# + expected + "}"
        }
        #expect(text.withLock { $0 } == expected)
    }
}

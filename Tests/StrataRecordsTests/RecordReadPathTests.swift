import Foundation
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataRecords

/// A record that reads only its id: every other member is skipped.
struct OnlyAnID: Codable, Identifiable, Sendable {
    var id: String
}

@Suite("Records: the read path (memory map, page cache, one-pass decoding)")
struct RecordReadPathTests {
    /// `PRAGMA name` on a connection, as an integer.
    static func pragma(_ name: String, on connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.statement("PRAGMA \(name)", operation: "test")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0)
    }

    @Test(arguments: [nil, 0, 64 << 20])
    func everyConnectionSetsItsMapAndItsCache(_ memoryMapBytes: Int?) throws {
        let fixture = try RecordsFixture()
        var configuration = RecordsConfiguration()
        if let memoryMapBytes {
            configuration.memoryMapBytes = memoryMapBytes
            configuration.pageCacheKibibytes = 1_000
        }
        let store = try fixture.store(configuration: configuration)
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        let engine = try #require(store.engine as? SQLiteRecordEngine)
        // By default nothing is read through a map (a file truncated under it would stop the process with
        // `SIGBUS`), and each cache holds up to 256 MiB.
        let expectedMap = Int64(memoryMapBytes ?? 0)
        let expectedCache = Int64(memoryMapBytes == nil ? -262_144 : -1_000)
        let writer = try engine.withWriter {
            [try Self.pragma("mmap_size", on: $0), try Self.pragma("cache_size", on: $0)]
        }
        let reader = try engine.readers.with {
            [try Self.pragma("mmap_size", on: $0), try Self.pragma("cache_size", on: $0)]
        }
        #expect(writer == [expectedMap, expectedCache])
        #expect(reader == [expectedMap, expectedCache])
        #expect(try people.get(id: person(1).id) == person(1))
    }

    /// The reader pool lends each connection to one thread at a time: the one given back last from a slot of its
    /// own, the others from a list. Many threads reading at once through two connections read every record right,
    /// and releasing the store closes every reader, the one in the slot too: the last close removes the `-wal` and
    /// `-shm` files, which a connection left open would keep.
    @Test func readersAreLentOneThreadAtATimeAndCloseWithTheStore() throws {
        let fixture = try RecordsFixture()
        var configuration = RecordsConfiguration()
        configuration.readerCount = 2
        try {
            let store = try fixture.store(configuration: configuration)
            let people = try store.collection(Person.self, named: "people")
            try people.insert(contentsOf: (0..<50).map(person))
            let wrong = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<200 {
                    let expected = person((thread * 7 + index) % 50)
                    if (try? people.get(id: expected.id)) != expected { wrong.withLock { $0 += 1 } }
                }
            }
            #expect(wrong.withLock { $0 } == 0)
            #expect(try people.fetch().count == 50)
            #expect(FileManager.default.fileExists(atPath: fixture.path + "-wal"))
        }()
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-shm"))
    }

    @Test func aRepeatedNameIsRefusedInAMemberTheTypeDoesNotRead() throws {
        // The record type never opens `extra`, yet its repeated name makes the record corrupt: SQLite's JSON
        // functions would read another value than a last-wins reader.
        let texts = [
            #"{"id":"t","extra":{"b":1,"b":2}}"#, #"{"id":"t","extra":[{"b":1,"\u0062":2}]}"#,
        ]
        for text in texts {
            #expect(throws: JSONParseError.self) {
                try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(OnlyAnID.self, from: $0) }
            }
        }
        let fine = #"{"id":"t","extra":{"b":1,"c":[{"b":2},{"b":3}]}}"#
        #expect(try Data(fine.utf8).withUnsafeBytes { try FastJSONDecoder.decode(OnlyAnID.self, from: $0) }.id == "t")
    }

    @Test func membersAreFoundInAnyOrderAndNestedValuesKeepTheirPath() throws {
        // The decoder walks the tape: members in another order than the type declares, white space everywhere,
        // escaped strings and names, and a nested value's error names its full path.
        let text = """
             { "tags" : [ "a" , "b\\u0063" ] , "age" : -42 , "email" : "e\\"q" ,
              "na\\u006de" : "N" , "id" : "x" }\t
            """
        let decoded = try Data(text.utf8).withUnsafeBytes { try FastJSONDecoder.decode(Person.self, from: $0) }
        #expect(decoded == Person(id: "x", name: "N", email: "e\"q", age: -42, tags: ["a", "bc"]))
        let wrong = #"{"id":"x","name":"N","email":"e","age":1,"tags":["a",2]}"#
        let error = #expect(throws: DecodingError.self) {
            try Data(wrong.utf8).withUnsafeBytes { try FastJSONDecoder.decode(Person.self, from: $0) }
        }
        #expect(error.map { RecordCoder.describe($0) }?.contains("tags.[1]") == true)
        let numbers: [(String, Int)] = [
            ("9223372036854775807", .max), ("-9223372036854775808", .min), ("1e2", 100),
            ("123456789012345678", 123_456_789_012_345_678), ("-0", 0),
        ]
        for (text, value) in numbers {
            let record = #"{"id":"x","name":"N","email":"e","age":\#(text),"tags":[]}"#
            #expect(
                try Data(record.utf8).withUnsafeBytes { try FastJSONDecoder.decode(Person.self, from: $0) }.age == value
            )
        }
    }
}

import Foundation
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataRecords
@testable import StrataSQLite

/// A record that reads only its id: every other member is skipped.
struct OnlyAnID: Codable, Identifiable, Sendable {
    var id: String
}

/// A record whose decoding writes to the store in ``store`` (a log of reads, say): a key per record read.
struct LoggedRead: Codable, Identifiable, Sendable {
    static let store = Mutex<RecordStore?>(nil)
    var id: String

    enum CodingKeys: String, CodingKey { case id }

    init(id: String) { self.id = id }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        if let store = Self.store.withLock({ $0 }) {
            try store.put(Data(id.utf8), for: "read-" + (id.count > 100 ? "\(id.count)" : id))
        }
    }
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

    /// A point get reads on the writer connection when no write holds it, and on a reader when one does. Inside a
    /// write on the same thread the writer is held: a get there reads committed records only, as every read outside
    /// the transaction does, and never the transaction's own changes (nor does it wait for the lock it holds).
    @Test func aGetDuringAWriteReadsWhatIsCommitted() throws {
        let fixture = try RecordsFixture()
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try people.insert(person(1))
        #expect(try people.get(id: person(1).id) == person(1))
        try store.write { tx in
            try tx(people).insert(person(2))
            try tx(people).update(Person(id: person(1).id, name: "changed", email: "c@example.com", age: 1, tags: []))
            #expect(try tx(people).get(id: person(2).id) == person(2))
            #expect(try people.get(id: person(2).id) == nil)
            #expect(try people.get(id: person(1).id) == person(1))
        }
        #expect(try people.get(id: person(2).id) == person(2))
        #expect(try people.get(id: person(1).id)?.name == "changed")
        #expect(try people.get(id: "absent") == nil)
    }

    /// A value of the store's key-value table (its `StorageBackend` side) is read as a point get is: on the writer
    /// when no write holds it, on a reader when one does. Inside a write on the same thread, or while another
    /// thread's write holds the writer, it reads what is committed, without waiting for the writer.
    @Test func aValueReadDuringAWriteReadsWhatIsCommitted() throws {
        let fixture = try RecordsFixture()
        let store = try fixture.store()
        let people = try store.collection(Person.self, named: "people")
        try store.put(Data("one".utf8), for: "k")
        #expect(try store.data(for: "k") == Data("one".utf8))
        try store.write { tx in
            try tx(people).insert(person(1))
            #expect(try store.data(for: "k") == Data("one".utf8))
            #expect(try store.metadata(for: "k")?.size == 3)
            #expect(try store.data(for: "absent") == nil)
        }
        let writing = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let other = Thread {
            try? store.write { tx in
                try tx(people).insert(person(2))
                writing.signal()
                release.wait()
            }
        }
        other.start()
        writing.wait()
        #expect(try store.data(for: "k") == Data("one".utf8))
        #expect(try store.metadata(for: "k")?.size == 3)
        release.signal()
        try store.put(Data("two!".utf8), for: "k")
        #expect(try store.data(for: "k") == Data("two!".utf8))
        #expect(try store.metadata(for: "k")?.size == 4)
    }

    /// A record type's `init(from:)` may use the store it is read from, even write to it: a get copies the row off
    /// the writer connection and gives the writer back before decoding.
    @Test func aRecordMayWriteToTheStoreWhileItIsDecoded() throws {
        let fixture = try RecordsFixture()
        let store = try fixture.store()
        let reads = try store.collection(LoggedRead.self, named: "reads")
        let long = String(repeating: "x", count: 5_000)
        try reads.insert(contentsOf: [LoggedRead(id: "short"), LoggedRead(id: long)])
        LoggedRead.store.withLock { $0 = store }
        defer { LoggedRead.store.withLock { $0 = nil } }
        // A short row is copied onto the stack, a long one (past 1 KiB) into an array.
        #expect(try reads.get(id: "short")?.id == "short")
        #expect(try reads.get(id: long)?.id == long)
        #expect(try store.data(for: "read-short") == Data("short".utf8))
        #expect(try store.data(for: "read-\(long.count)") == Data(long.utf8))
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

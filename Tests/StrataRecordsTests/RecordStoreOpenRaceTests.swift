import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

/// Opening a SQLite store while other processes create or write it: an open never queues for the write lock of a
/// store that has its tables, and a store being created is not taken for a truncated one.
@Suite("Records: opening a store others are creating or writing")
struct RecordStoreOpenRaceTests {
    /// A writer holds the store's write lock (`BEGIN IMMEDIATE`, the `sqlite3` shell, another program) for longer
    /// than the opening store's busy timeout: the open reads the store's schema beside it, and only a write waits.
    @Test func anOpenDoesNotWaitForAWriterOfTheStore() throws {
        let directory = try TemporaryDirectory(prefix: "strata-open-race")
        let path = directory.appending("store.sqlite")
        try RecordStore(path: path).collection(Counter.self, named: "counters").upsert(Counter(id: "a", value: 1))

        let writer = try SQLiteConnection(
            path: path, access: .readWrite(create: false), configuration: RecordsConfiguration())
        try writer.execute("BEGIN IMMEDIATE", operation: "test")
        defer { try? writer.execute("ROLLBACK", operation: "test") }

        let impatient = RecordsConfiguration(busyTimeoutMilliseconds: 200)
        let store = try RecordStore(path: path, configuration: impatient)
        let counters = try store.collection(Counter.self, named: "counters")
        #expect(try counters.get(id: "a")?.value == 1)
        // A write still queues for the lock, and says so when it runs out of time.
        #expect(throws: StorageError.self) { try counters.upsert(Counter(id: "b", value: 2)) }
    }

    /// An empty database is still filled under the write lock: an open that finds one while another connection
    /// writes waits for it, and gives up with a typed error after its busy timeout.
    @Test func anEmptyDatabaseIsFilledOnlyUnderTheWriteLock() throws {
        let directory = try TemporaryDirectory(prefix: "strata-open-race")
        let path = directory.appending("store.sqlite")
        let writer = try SQLiteConnection(
            path: path, access: .readWrite(create: true), configuration: RecordsConfiguration())
        try writer.execute("BEGIN IMMEDIATE", operation: "test")
        let error = #expect(throws: StorageError.self) {
            _ = try RecordStore(path: path, configuration: RecordsConfiguration(busyTimeoutMilliseconds: 200))
        }
        #expect(error?.code == .lockTimeout, "\(String(describing: error))")
        try writer.execute("ROLLBACK", operation: "test")
        _ = try RecordStore(path: path).collection(Counter.self, named: "counters")
    }

    /// A commit in rollback-journal mode (how a new store's tables are written, before it turns to WAL) writes page
    /// 1, with the new page count, before the pages it adds: another process that looks then finds the file shorter
    /// than its header says, with the journal beside it. That is a commit in progress (or one SQLite rolls back), not
    /// a truncated store; without a journal the same file is refused as truncated.
    @Test func aFileShorterThanItsHeaderBesideAJournalIsNotCalledTruncated() throws {
        let directory = try TemporaryDirectory(prefix: "strata-open-race")
        let path = directory.appending("store.sqlite")
        let connection = try SQLiteConnection(
            path: path, access: .readWrite(create: true), configuration: RecordsConfiguration())
        try connection.execute(
            "CREATE TABLE a (x); CREATE TABLE b (x); INSERT INTO a VALUES (1)", operation: "test")
        connection.close()
        let pageSize = 4_096
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size >= 3 * pageSize)
        #expect(truncate(path, off_t(pageSize)) == 0)

        let error = #expect(throws: StorageError.self) {
            try SQLiteFileProbe.checkHeader(path, walHasContent: false)
        }
        #expect(error?.code == .corrupt)
        #expect(FileManager.default.createFile(atPath: path + "-journal", contents: Data(count: 512)))
        try SQLiteFileProbe.checkHeader(path, walHasContent: false)
    }
}

import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

/// Opening a SQLite store while other processes create or write it: an open never queues for the write lock of a
/// store that has its tables, several processes creating one store at once all open it, and a store being created
/// is not taken for a truncated one.
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

    /// Rounds of four processes opening one new store at the same moment and writing it: each finds the file absent
    /// or whole (a new store is created under a temporary name and linked into place), and every one opens it and
    /// counts; no temporary file is left beside it.
    @Test func processesCreatingOneStoreAtOnceAllOpenIt() throws {
        let directory = try TemporaryDirectory(prefix: "strata-open-race")
        let child = try TestExecutables.url(named: "strata-test-child")
        for round in 0..<12 {
            let path = directory.appending("store-\(round).sqlite")
            let processes = try (0..<4).map { _ in try ChildProcess(child, ["records-increment", path, "5"]) }
            for process in processes {
                let result = process.wait()
                #expect(result.status == 0, "round \(round): \(result.failureSummary)")
            }
            let counters = try RecordStore(path: path).collection(Counter.self, named: "counters")
            #expect(try counters.get(id: "shared")?.value == 20, "round \(round)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.filter { $0.contains(".creating-") }.isEmpty, "\(names)")
    }

    /// A new store is created under a temporary name with the configured permissions and linked into place: it has
    /// them, it is in WAL mode from its first byte on disk, and nothing of its creation is left beside it.
    @Test(arguments: [0o600, 0o640])
    func aNewStoreIsLinkedInPlaceWithItsPermissions(permissions: Int) throws {
        let directory = try TemporaryDirectory(prefix: "strata-open-race")
        let path = directory.appending("store.sqlite")
        var configuration = RecordsConfiguration()
        configuration.filePermissions = permissions
        _ = try RecordStore(path: path, configuration: configuration)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == permissions)
        let header = try #require(FileManager.default.contents(atPath: path)).prefix(20)
        #expect(Array(header.suffix(2)) == [2, 2], "file format write and read versions 2: WAL")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.allSatisfy { !$0.contains(".creating-") }, "\(names)")
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

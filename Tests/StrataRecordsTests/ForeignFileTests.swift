import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords
@testable import StrataSQLite

@Suite("RecordStore: foreign and damaged files are refused unchanged")
struct ForeignFileTests {
    @Test(arguments: ForeignRecordFile.allCases, [UInt64(1), 2, 3])
    func openingLeavesTheFileUnchanged(_ kind: ForeignRecordFile, _ seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("x.sqlite")
        try kind.write(to: path, seed: seed)
        let before = ForeignRecordFile.snapshot(path)
        for readOnly in [false, true] {
            var configuration = RecordsConfiguration()
            configuration.isReadOnly = readOnly
            let error = #expect(throws: StorageError.self) { try RecordStore(path: path, configuration: configuration) }
            #expect(error?.code == kind.expectedCode, "\(kind), read-only \(readOnly): \(String(describing: error))")
            #expect(error?.path == path)
            #expect(ForeignRecordFile.snapshot(path) == before, "\(kind) was changed (read-only \(readOnly))")
        }
    }

    @Test func anEmptyFileBecomesAStoreAndAnEmptyReadOnlyOpenCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("empty.sqlite")
        try Data().write(to: URL(fileURLWithPath: path))
        var readOnly = RecordsConfiguration()
        readOnly.isReadOnly = true
        #expect(try RecordStore(path: path, configuration: readOnly).collectionNames() == [])
        #expect(ForeignRecordFile.snapshot(path) == [Data(), nil, nil, nil])
        let missing = #expect(throws: StorageError.self) {
            try RecordStore(path: directory.appending("missing.sqlite"), configuration: readOnly)
        }
        #expect(missing?.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("missing.sqlite")))

        let store = try RecordStore(path: path)
        try store.collection(BatchItem.self, named: "items").insert(BatchItem(id: "a", batch: 1, payload: "p"))
        // A new store's tables are in the main file at once: it identifies itself without its WAL.
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
        #expect(header.starts(with: Data("SQLite format 3\0".utf8)))
        #expect(header[18] == 2 && header[19] == 2, "WAL mode")
        #expect(try RecordStore(path: path, configuration: readOnly).collectionNames() == ["items"])
    }

    @Test func aReadOnlyStoreRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("store.sqlite")
        try RecordStore(path: path).collection(BatchItem.self, named: "items").insert(
            BatchItem(id: "a", batch: 1, payload: "p"))
        var readOnly = RecordsConfiguration()
        readOnly.isReadOnly = true
        let store = try RecordStore(path: path, configuration: readOnly)
        let items = try store.collection(BatchItem.self, named: "items")
        #expect(try items.get(id: "a")?.payload == "p")
        #expect(try store.verify() == [])
        let error = #expect(throws: StorageError.self) { try items.insert(BatchItem(id: "b", batch: 2, payload: "q")) }
        #expect(error?.code == .permissionDenied)
    }

    /// A database whose whole schema is still in its WAL (no checkpoint yet), held open by `holder`: the main
    /// file alone has no table. `strata` makes such a store with the tables of an older Strata, or a foreign one.
    static func uncheckpointed(_ path: String, strata: Bool) throws -> SQLiteConnection {
        let holder = try SQLiteConnection(path: path, access: .readWrite(create: true), configuration: .init())
        try holder.execute("PRAGMA wal_autocheckpoint=0; PRAGMA journal_mode=WAL", operation: "test")
        try holder.execute(
            strata
                ? """
                CREATE TABLE strata_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                INSERT INTO strata_meta VALUES ('format', 'strata-records'), ('format_version', '1');
                CREATE TABLE strata_kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, modified REAL NOT NULL) WITHOUT ROWID;
                """
                : "CREATE TABLE app (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO app VALUES (1, 'one');",
            operation: "test")
        return holder
    }

    @Test(arguments: [true, false]) func aDatabaseWhoseSchemaIsOnlyInItsWALIsIdentifiedFromIt(_ strata: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("live.sqlite")
        let holder = try Self.uncheckpointed(path, strata: strata)
        defer { holder.close() }
        // A writer still running: -wal and -shm exist.
        let main = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(
            try SQLiteFileProbe.withConnection(path, .immutable, configuration: .init()) {
                try SQLiteFileProbe.classify($0)
            } == .empty, "the main file alone has no schema")
        // A writer that crashed: a copy of the main file and its WAL, without -shm.
        let crashed = directory.appending("crashed.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")
        let wal = try Data(contentsOf: URL(fileURLWithPath: crashed + "-wal"))
        for candidate in [path, crashed] {
            if strata {
                let store = try RecordStore(path: candidate)
                try store.collection(BatchItem.self, named: "items").insert(BatchItem(id: "a", batch: 1, payload: "p"))
                #expect(try store.collection(BatchItem.self, named: "items").count() == 1)
            } else {
                let error = #expect(throws: StorageError.self) { try RecordStore(path: candidate) }
                #expect(error?.code == .notAStore)
            }
        }
        if !strata {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == main)
            #expect(try Data(contentsOf: URL(fileURLWithPath: crashed)) == main)
            #expect(try Data(contentsOf: URL(fileURLWithPath: crashed + "-wal")) == wal)
        }
    }

    @Test func symbolicLinksAreRefused() throws {
        let directory = try TemporaryDirectory()
        let real = directory.appending("real.sqlite")
        try RecordStore(path: real).collection(BatchItem.self, named: "items").insert(
            BatchItem(id: "a", batch: 1, payload: "p"))
        let link = directory.appending("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let before = ForeignRecordFile.snapshot(real)
        let error = #expect(throws: StorageError.self) { try RecordStore(path: link) }
        #expect(error?.code == .symbolicLink)
        #expect(ForeignRecordFile.snapshot(real) == before)

        // A store whose -wal (or -shm, or -journal) is a link somewhere else is refused too, and the link's
        // target is never created or written.
        for suffix in ["-wal", "-shm", "-journal"] {
            let path = directory.appending("store\(suffix).sqlite")
            try FileManager.default.copyItem(atPath: real, toPath: path)
            let target = directory.appending("elsewhere\(suffix)")
            try FileManager.default.createSymbolicLink(atPath: path + suffix, withDestinationPath: target)
            let refused = #expect(throws: StorageError.self) { try RecordStore(path: path) }
            #expect(refused?.code == .symbolicLink, "\(suffix)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(suffix)")
        }
    }

    @Test func sqliteItselfRefusesALinkedPath() throws {
        // Below the probe: the connection is opened with SQLITE_OPEN_NOFOLLOW, so a link swapped in after the
        // probe looked is refused by SQLite, typed.
        let directory = try TemporaryDirectory()
        let real = directory.appending("real.sqlite")
        _ = try RecordStore(path: real)
        let link = directory.appending("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let error = #expect(throws: StorageError.self) {
            try SQLiteConnection(path: link, access: .readWrite(create: false), configuration: RecordsConfiguration())
        }
        #expect(error?.code == .symbolicLink)
    }

    @Test func aDamagedDataPageIsCorruptNotForeign() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("store.sqlite")
        try ForeignRecordFile.writeStrataStore(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // The last page holds records: an impossible b-tree page type there.
        bytes[bytes.count - pageSize] = 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        var readOnly = RecordsConfiguration()
        readOnly.isReadOnly = true
        let store = try RecordStore(path: path, configuration: readOnly)
        #expect(try !store.verify().isEmpty)
        let error = #expect(throws: StorageError.self) { try store.collection(BatchItem.self, named: "items").fetch() }
        #expect(error?.code == .corrupt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    /// A header whose page count SQLite cannot trust (its "version valid for" field differs from the change
    /// counter, as another program's scribble leaves it) made opening a store write page 1: SQLite corrects the
    /// count at the start of any write transaction, and opening ran one to check the schema. Opening and reading
    /// an existing store writes nothing, whether its pages are all there (it reads) or cut (it is `corrupt`).
    @Test(arguments: [false, true])
    func aStoreWhoseHeaderMisstatesItsSizeIsLeftAsFound(_ truncated: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("store.sqlite")
        try ForeignRecordFile.writeStrataStore(to: path, records: 300)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pages = bytes.count / pageSize
        try #require(pages >= 4)
        if truncated { bytes.count = pageSize * (pages / 2) }
        // A page count in the header that is not the file's, and a "version valid for" that no longer vouches for it.
        let misstated = UInt32(pages + 3)
        for index in 0..<4 { bytes[28 + index] = UInt8(truncatingIfNeeded: misstated >> (24 - 8 * index)) }
        bytes[92] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let before = ForeignRecordFile.snapshot(path)
        do {
            let store = try RecordStore(path: path)
            let items = try store.collection(BatchItem.self, named: "items")
            if truncated {
                #expect(try !store.verify().isEmpty)
                let error = #expect(throws: StorageError.self) { try items.fetch() }
                #expect(error?.code == .corrupt)
            } else {
                #expect(try items.fetch().count == 300)
            }
        }
        #expect(ForeignRecordFile.snapshot(path) == before, "truncated \(truncated): the store's file was changed")
    }

    @Test func aPathWithURICharactersOpens() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("a?b#c%20d caf\u{E9} [x].sqlite")
        try RecordStore(path: path).collection(BatchItem.self, named: "items").insert(
            BatchItem(id: "a", batch: 1, payload: "p"))
        #expect(try RecordStore(path: path).collection(BatchItem.self, named: "items").count() == 1)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}

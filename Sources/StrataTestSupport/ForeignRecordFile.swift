public import Foundation
public import StrataCore
import StrataRecords
import StrataSQLite

/// Files that are not a sound Strata record store, made on purpose: other programs' SQLite databases (written by
/// the `sqlite3` shell, which nobody here wrote), files that are not SQLite at all, and Strata stores truncated,
/// damaged or from a newer program. Opening any of them must fail with ``expectedCode`` and leave it
/// byte-for-byte unchanged, with no `-wal`, `-shm` or `-journal` created.
public enum ForeignRecordFile: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Another program's database in rollback-journal mode.
    case rollbackDatabase
    /// Another program's database in WAL mode (header bytes 18–19 are 2).
    case walDatabase
    /// A SQLite database with no table but a user version set by another program.
    case markedEmptyDatabase
    /// A short text file.
    case textFile
    /// A one-byte file, which SQLite would take for an empty database and overwrite.
    case oneByteFile
    /// A page of zero bytes.
    case zeroFilledFile
    /// A Strata store cut in the middle of a page.
    case truncatedStore
    /// A Strata store cut at a page boundary, shorter than its header says.
    case truncatedStoreAtPageBoundary
    /// A Strata store whose format version is newer than this code's.
    case newerFormatStore
    /// A Strata store whose schema page (page 1's b-tree) is overwritten.
    case damagedSchemaPage

    public var description: String { rawValue }

    /// The code an open must fail with.
    public var expectedCode: StorageError.Code {
        switch self {
        case .rollbackDatabase, .walDatabase, .markedEmptyDatabase, .textFile, .oneByteFile, .zeroFilledFile:
            .notAStore
        case .truncatedStore, .truncatedStoreAtPageBoundary, .damagedSchemaPage: .corrupt
        case .newerFormatStore: .unsupportedVersion
        }
    }

    /// Writes the file at `path` (its folder must exist); `seed` varies table names, row counts, page sizes and
    /// where damage lands, so a harness can search the class.
    public func write(to path: String, seed: UInt64 = 0) throws {
        var random = SeededGenerator(seed: seed)
        switch self {
        case .rollbackDatabase, .walDatabase:
            let mode = self == .walDatabase ? "WAL" : "DELETE"
            try Self.sqlite(
                path, "PRAGMA page_size=\(Self.pageSize(&random)); PRAGMA journal_mode=\(mode);" + Self.schema(&random))
        case .markedEmptyDatabase:
            try Self.sqlite(path, "PRAGMA user_version=\(1 + random.next() % 1000); VACUUM;")
        case .textFile:
            try Data("name,age\nAda,36\n".utf8).write(to: URL(fileURLWithPath: path))
        case .oneByteFile:
            try Data([UInt8(truncatingIfNeeded: random.next())]).write(to: URL(fileURLWithPath: path))
        case .zeroFilledFile:
            try Data(count: 4096).write(to: URL(fileURLWithPath: path))
        case .truncatedStore, .truncatedStoreAtPageBoundary, .newerFormatStore, .damagedSchemaPage:
            try Self.writeStrataStore(to: path, records: 50 + Int(random.next() % 400))
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let pages = bytes.count / pageSize
            switch self {
            case .truncatedStore:
                bytes.count = pageSize + Int(random.next() % UInt64((pages - 1) * pageSize - 1)) + 1
                if bytes.count % pageSize == 0 { bytes.count -= 1 }
            case .truncatedStoreAtPageBoundary:
                bytes.count = pageSize * (1 + Int(random.next() % UInt64(pages - 1)))
            case .damagedSchemaPage:
                // Page 1's b-tree header starts after the 100-byte file header: an impossible page type.
                let start = 100 + Int(random.next() % 8)
                for offset in start..<(start + 8) { bytes[offset] = 0xFF }
            default:
                try Self.sqlite(
                    path, "UPDATE strata_meta SET value = '\(2 + random.next() % 98)' WHERE key = 'format_version';")
                return
            }
            try bytes.write(to: URL(fileURLWithPath: path))
        }
    }

    /// The bytes of `path` and of its `-wal`, `-shm` and `-journal` companions (`nil` where there is none).
    public static func snapshot(_ path: String) -> [Data?] {
        ["", "-wal", "-shm", "-journal"].map { FileManager.default.contents(atPath: path + $0) }
    }

    static func pageSize(_ random: inout SeededGenerator) -> Int { 512 << Int(random.next() % 8) }

    /// A few tables of another program, with rows.
    static func schema(_ random: inout SeededGenerator) -> String {
        var sql = "BEGIN;"
        for table in 0..<(1 + Int(random.next() % 4)) {
            let name = "app_\(table)_\(random.next() % 1000)"
            sql += "CREATE TABLE \(name) (id INTEGER PRIMARY KEY, name TEXT, data BLOB);"
            for row in 0..<Int(random.next() % 200) {
                sql += "INSERT INTO \(name) VALUES (\(row), 'row \(row)', randomblob(\(random.next() % 300)));"
            }
        }
        return sql + "COMMIT;"
    }

    /// A sound Strata store, checkpointed so the main file holds everything.
    public static func writeStrataStore(to path: String, records: Int = 200) throws {
        let store = try RecordStore(path: path)
        try store.collection(BatchItem.self, named: "items").insert(
            contentsOf: (0..<records).map {
                BatchItem(id: "item-\($0)", batch: $0, payload: String(repeating: "p", count: $0 % 300))
            })
        _ = try store.verify()
        try sqlite(path, "PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// Runs SQL through the `sqlite3` shell.
    static func sqlite(_ path: String, _ sql: String) throws {
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [path, sql])
        guard result.status == 0 else {
            throw ChildProcess.Failure(description: "sqlite3 failed: \(result.standardError)")
        }
    }
}

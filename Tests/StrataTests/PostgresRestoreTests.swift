import Foundation
import Strata
import StrataCatalog
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// A note, the records the restore tests compare.
struct RestoredNote: Codable, Identifiable, Hashable {
    var id: String
    var n: Int
    var text: String
    var tags: [String]
    var score: Double
}

/// A capture of a store whose records tier is on PostgreSQL restored into a new schema and into SQLite, against
/// the test server: every record, value and key compared; a non-empty schema refused; a killed restore leaves
/// neither rows nor root.
@Suite("Storage: restore of a PostgreSQL records capture", .enabled(if: RecordEngineKind.available.contains(.postgres)))
final class PostgresRestoreTests {
    let directory: TemporaryDirectory
    let url = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
    /// The schemas the test made, dropped at the end.
    var schemas: [String] = []

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-pg-restore")
    }

    deinit {
        for schema in schemas {
            _ = try? PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: url, schema: schema))
        }
    }

    /// A fresh schema name, dropped when the test ends.
    func newSchema() -> String {
        let schema = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        schemas.append(schema)
        return schema
    }

    /// `url` with `strata_schema=` and more parameters.
    func url(_ schema: String, _ more: String = "") -> String {
        url + (url.contains("?") ? "&" : "?") + "strata_schema=" + schema + more
    }

    /// A store on PostgreSQL with a value in each tier, `count` notes in two collections (one indexed), `values`
    /// records-tier values through the facade, and schema version 3.
    func filledStore(notes count: Int = 1_500, values: Int = 40) throws -> Storage {
        let storage = try Storage(
            root: directory.appending("store"), secretsKey: testSecretsKey, recordsURL: url(newSchema()))
        #expect(storage.records.name == "postgres")
        for (tier, descriptor) in descriptorForTier {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        for index in 0..<values {
            try storage.put(
                Data([UInt8(truncatingIfNeeded: index), 0, 0xFF]), for: "v/\(index)", as: descriptorForTier[.records]!)
        }
        let records = storage.records
        let notes = try records.collection(RestoredNote.self, named: "notes", indexes: [.field("n"), .unique("text")])
        let drafts = try records.collection(RestoredNote.self, named: "drafts")
        try records.write { transaction in
            for index in 0..<count {
                let note = RestoredNote(
                    id: String(format: "n%05d", index), n: index % 17, text: "note \(index) \"quoted\" \\ é",
                    tags: ["a", "b\(index % 3)"], score: Double(index) / 7)
                try transaction(notes).insert(note)
                if index % 10 == 0 { try transaction(drafts).insert(note) }
            }
        }
        try records.engine.migrate { try $0.setSchemaVersion(3) }
        return storage
    }

    /// Every catalogued key of `original` reads the same in `restored`, in the same tier, and both collections hold
    /// the same records.
    func expectSameContents(_ original: Storage, _ restored: Storage) throws {
        #expect(try restored.verifyCatalog().isSound)
        let keys = try original.catalog.locations()
        #expect(keys.count == 44)
        for location in keys {
            #expect(try restored.data(for: location.key) == original.data(for: location.key), "\(location.key)")
            #expect(try restored.location(of: location.key)?.tier == location.tier)
        }
        for name in ["notes", "drafts"] {
            let before = try original.records.collection(RestoredNote.self, named: name).fetch()
            let after = try restored.records.collection(RestoredNote.self, named: name).fetch()
            #expect(after == before, "\(name)")
            #expect(!after.isEmpty)
        }
        #expect(try restored.records.engine.schemaVersion() == 3)
    }

    /// Whether a schema exists on the server, and how many relations it holds.
    func schemaState(_ schema: String) throws -> (exists: Bool, relations: Int) {
        let connection = try PostgresConnection(PostgresConfiguration(connectionString: url).client)
        defer { connection.close() }
        let found = try connection.query(
            "SELECT count(*) FROM pg_namespace WHERE nspname = $1::text", [.text(schema)], operation: "test")
        let relations = try connection.query(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1::text",
            [.text(schema)], operation: "test")
        return (found.text(0, 0) != "0", Int(relations.text(0, 0)) ?? -1)
    }

    @Test func restoresIntoANewSchemaEveryRecordAndKey() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        #expect(capture.files.contains { $0.path == "records/postgres/c/notes.jsonl" })

        let schema = newSchema()
        let target = directory.appending("restored")
        let report = try Storage.restore(
            from: capture, to: target, secretsKey: testSecretsKey, records: .postgres(url: url, schema: schema))
        #expect(report.verifiedKeys == 44)
        let restored = try openStorage(target)
        #expect(restored.records.name == "postgres")
        #expect(restored.records.engine.location.hasSuffix("#" + schema))
        try expectSameContents(storage, restored)
        // The indexes came back, and the restored root holds no SQLite copy or export.
        let plan = try restored.records.engine.queryPlan(for: Query(Field("n") == 3), in: "notes")
        #expect(plan.joined().contains("i_notes_n"), "\(plan)")
        let files = try FileManager.default.contentsOfDirectory(atPath: target + "/records")
        #expect(files.isEmpty, "\(files)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    @Test func restoresIntoSQLiteByDefault() throws {
        let storage = try filledStore()
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let target = directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 44)
        // The restored configuration names SQLite: STRATA_RECORDS_URL in the environment does not move the records.
        let restored = try openStorage(target)
        #expect(restored.records.name == "sqlite")
        #expect(try StoreConfiguration.read(from: restored.paths)?.records.backend == "sqlite")
        #expect(FileManager.default.fileExists(atPath: target + "/records/main.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: target + "/records/postgres"))
        try expectSameContents(storage, restored)
        let plan = try restored.records.engine.queryPlan(for: Query(Field("n") == 3), in: "notes")
        #expect(plan.joined().contains("i_notes_n"), "\(plan)")
    }

    /// A schema holding anything is refused, named, before anything is written there; it keeps what it held.
    @Test func aNonEmptySchemaIsRefused() throws {
        let storage = try filledStore(notes: 20)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let occupied = newSchema()
        let other = try Storage(
            root: directory.appending("other"), secretsKey: testSecretsKey, recordsURL: url(occupied))
        try other.put(Data("kept".utf8), for: "mine", as: descriptorForTier[.records]!)
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(
                from: capture, to: target, secretsKey: testSecretsKey, records: .postgres(url: url(occupied)))
        }
        #expect(
            error?.code == .conflict && error?.key == occupied && error?.tier == .records,
            "\(String(describing: error))")
        #expect(error?.recovery?.contains("new schema") == true)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try other.data(for: "mine") == Data("kept".utf8))
        #expect(try schemaState(occupied).relations == 4)
    }

    /// A capture of a SQLite store cannot go to PostgreSQL (typed, before anything is written).
    @Test func aRecordsURLNeedsAPostgresCapture() throws {
        let storage = try openStorage(directory.appending("sqlite-store"))
        try storage.put(Data("x".utf8), for: "x", as: descriptorForTier[.records]!)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, to: target, records: .postgres(url: url, schema: newSchema()))
        }
        #expect(error?.code == .invalidArgument && error?.tier == .records)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// A damaged export line is `.corrupt`, naming the file and line; nothing is left on the server or on disk.
    @Test func aDamagedExportLeavesNothing() throws {
        let storage = try filledStore(notes: 30)
        let folder = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: folder)
        let forged = try FolderCapture(folder: directory.appending("forged"))
        for file in folder.files {
            var bytes = Array(try #require(folder.contents(of: file.path)))
            var described = file
            if file.path == "records/postgres/c/drafts.jsonl" {
                bytes += Array(#"{"id" : "x", "body" : [1, 2]}"#.utf8) + [0x0A]
                described.size = Int64(bytes.count)
            }
            try forged.add(described, contents: bytes)
        }
        let schema = newSchema()
        let target = directory.appending("restored")
        for records in [RestoreRecordsTarget.sqlite, .postgres(url: url, schema: schema)] {
            let error = #expect(throws: StorageError.self) {
                try Storage.restore(from: forged, to: target, secretsKey: testSecretsKey, records: records)
            }
            #expect(error?.code == .corrupt && error?.path == "records/postgres/c/drafts.jsonl" && error?.line == 4)
            #expect(!FileManager.default.fileExists(atPath: target))
            #expect(try schemaState(schema).exists == false)
        }
    }

    /// A child restoring into PostgreSQL is killed with SIGKILL before and at several points inside its
    /// transaction: each time, no root and no schema are left (or, when it finished first, the whole store); a
    /// restore run to the end afterwards succeeds into the same schema and root.
    @Test func aKilledRestoreLeavesNeitherRowsNorRoot() throws {
        let storage = try filledStore(notes: 20_000, values: 40)
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        let schema = newSchema()
        let target = directory.appending("restored")
        let child = try TestExecutables.url(named: "strata-test-child")
        var killedInside = 0
        for (point, delay) in [-1, 0, 0, 0.02, 0.05, 0.1, 0.2, 0.4].enumerated() {
            let name = "strata_restore_\(point)_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let named = url + (url.contains("?") ? "&" : "?") + "application_name=" + name
            let process = try ChildProcess(child, ["restore-postgres", capture.folder, target, named, schema])
            if delay < 0 {
                usleep(100_000)
            } else {
                try waitUntil(timeout: 120) { try self.inTransaction(name) || !process.lines.isEmpty }
                usleep(UInt32(delay * 1_000_000))
            }
            let wasInside = try inTransaction(name)
            process.kill(SIGKILL)
            _ = process.wait()
            try waitUntil(timeout: 30) { try !self.connected(name) }
            if process.lines.contains("restored") {
                // It finished before the kill: the whole store, then cleaned for the next point.
                try expectSameContents(storage, try openStorage(target))
                try PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: url, schema: schema))
                try FileManager.default.removeItem(atPath: target)
                continue
            }
            if wasInside { killedInside += 1 }
            #expect(!FileManager.default.fileExists(atPath: target), "point \(point)")
            #expect(try schemaState(schema).exists == false, "point \(point)")
        }
        #expect(killedInside >= 3, "the kills never landed inside the transaction")
        try Storage.restore(
            from: capture, to: target, secretsKey: testSecretsKey, records: .postgres(url: url, schema: schema))
        try expectSameContents(storage, try openStorage(target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".strata-") }
                .isEmpty)
    }

    /// Whether the session named `name` is inside a transaction.
    func inTransaction(_ name: String) throws -> Bool {
        try sessions(name, where: "xact_start IS NOT NULL") > 0
    }

    /// Whether any session named `name` is still connected.
    func connected(_ name: String) throws -> Bool { try sessions(name, where: "true") > 0 }

    func sessions(_ name: String, where condition: String) throws -> Int {
        let connection = try PostgresConnection(PostgresConfiguration(connectionString: url).client)
        defer { connection.close() }
        let result = try connection.query(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1::text AND \(condition)", [.text(name)],
            operation: "test")
        return Int(result.text(0, 0)) ?? 0
    }

    func waitUntil(timeout: Double, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw StorageError(.timeout, "the awaited condition never held") }
            usleep(5_000)
        }
    }
}

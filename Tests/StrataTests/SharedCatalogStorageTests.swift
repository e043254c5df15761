import Foundation
import Strata
import StrataCatalog
import StrataPostgresClient
import StrataRecords
import StrataTestSupport
import Testing

@testable import StrataCatalogPostgres
@testable import StrataPostgres

/// Two machines of one service — two roots, a `Storage` each — whose catalog, records and files are one PostgreSQL
/// schema and one S3 prefix: every machine reads what any machine wrote last, and a key has one copy.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "").isEmpty
            && !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_S3_URL and STRATA_POSTGRES_URL (Scripts/test.sh starts both)"))
struct SharedCatalogStorageTests {
    /// The gateway stays up for each test: its clients retry a few times only.
    let gateway = S3GatewayHold(.steady)

    /// The issue's table, row by row: a file A puts is read by B; A makes the key a small record (a move files →
    /// records) and B reads the record; B makes it a large file again and A reads that, with no second copy; both
    /// list it; A deletes it and B finds nothing.
    @Test func twoMachinesSeeEachOthersPutsMovesAndDeletes() throws {
        let fleet = try Fleet()
        let a = try fleet.machine("a")
        let b = try fleet.machine("b")
        let document = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        #expect(
            try a.put(document, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: document.count)).tier
                == .files)
        #expect(try b.data(for: "doc") == document)

        let row = Data(#"{"title":"a row"}"#.utf8)
        #expect(
            try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count)).tier == .records
        )
        #expect(try b.data(for: "doc") == row)
        #expect(try b.location(of: "doc")?.tier == .records)

        let larger = Data(repeating: 0x42, count: 3 << 20)
        #expect(
            try b.put(larger, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: larger.count)).tier == .files)
        #expect(try a.data(for: "doc") == larger)
        #expect(try tiersHolding("doc", in: a) == [.files])
        #expect(try a.keys() == ["doc"])
        #expect(try b.keys() == ["doc"])

        #expect(try a.delete("doc"))
        #expect(try b.data(for: "doc") == nil)
        #expect(try b.keys().isEmpty)
        #expect(try b.verifyCatalog().isSound)
    }

    /// A machine that last saw a key in files puts a file under it after another machine moved it to records: the
    /// put must move it back (one catalog), not write beside the record as if it were still a file — which would
    /// leave two copies, and the other machine reading its stale record.
    @Test func aPutAfterAnotherMachinesMoveMovesTheKeyBack() throws {
        let fleet = try Fleet()
        let a = try fleet.machine("a")
        let b = try fleet.machine("b")
        let file = Data(repeating: 0x41, count: 300_000)
        try a.put(file, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: file.count))
        #expect(try b.data(for: "doc") == file)
        let row = Data(#"{"title":"a row"}"#.utf8)
        try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        let larger = Data(repeating: 0x42, count: 400_000)
        try b.put(larger, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: larger.count))
        #expect(try a.data(for: "doc") == larger)
        #expect(try tiersHolding("doc", in: a) == [.files])
        #expect(try a.verifyCatalog().isSound)
    }

    /// A read of a key whose value is in the records tier, which keeps its values in the catalog's schema on the
    /// catalog's server, finds the placement and the value in one statement: one round trip, as the tier's own read.
    /// Another machine's move of the key out of records is seen by the next such read.
    @Test func aReadOfARecordsValueIsOneRoundTrip() throws {
        let (fleet, catalog, a, b) = try twoMachines()
        let row = Data(#"{"title":"a row"}"#.utf8)
        try b.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        let store = try #require(try a.registry.backend(for: .records) as? RecordStore)
        let engine = try #require(store.engine as? PostgresRecordEngine)
        #expect(try a.data(for: "doc") == row)
        let before = catalog.pool.idleRoundTrips() + engine.pool.idleRoundTrips()
        #expect(try a.data(for: "doc") == row)
        #expect(catalog.pool.idleRoundTrips() + engine.pool.idleRoundTrips() - before == 1)

        let file = Data(repeating: 0x41, count: 200_000)
        try b.put(file, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: file.count))
        #expect(try a.data(for: "doc") == file)
        withExtendedLifetime(fleet) {}
    }

    /// A machine whose catalog session ends in the middle of a move loses the key's lock; another machine puts the
    /// key meanwhile, and then the first one's write fails. The first must not undo its write by removing what is
    /// in the new tier now — the other machine's value, acknowledged — but leave its intent to be settled.
    @Test func aMachineThatLostTheKeysLockLeavesWhatTheNextHolderWrote() throws {
        let (fleet, catalog, a, b) = try twoMachines()
        let row = Data(#"{"title":"a row"}"#.utf8)
        try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        let theirs = Data(repeating: 0x42, count: 300_000)
        let restore = try interrupt(a, on: catalog, in: fleet, at: .put, of: .files) { key in
            try b.put(theirs, for: key, as: DataDescriptor(kind: .file, estimatedSize: theirs.count))
            throw StorageError(.connectionFailed, "the test cut the write short", tier: .files, key: key)
        }
        let ours = Data(repeating: 0x41, count: 200_000)
        #expect(throws: StorageError.self) {
            try a.put(ours, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: ours.count))
        }
        try restore()
        #expect(try b.data(for: "doc") == theirs)
        #expect(try a.data(for: "doc") == theirs)
        #expect(try tiersHolding("doc", in: a) == [.files])
        #expect(try a.verifyCatalog().isSound)
    }

    /// A delete removes the key from each tier in turn; a machine whose session ends while it removes the record,
    /// with another machine putting the key in files meanwhile, must not go on to remove that file: it fails with
    /// `lock-lost`, and the other machine's put stands.
    @Test func aDeleteThatLostTheKeysLockRemovesNothingMore() throws {
        let (fleet, catalog, a, b) = try twoMachines()
        let row = Data(#"{"title":"a row"}"#.utf8)
        try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        let theirs = Data(repeating: 0x42, count: 300_000)
        let restore = try interrupt(a, on: catalog, in: fleet, at: .delete, of: .records) { key in
            try b.put(theirs, for: key, as: DataDescriptor(kind: .file, estimatedSize: theirs.count))
        }
        let error = try #require(throws: StorageError.self) { try a.delete("doc") }
        #expect(error.code == .lockLost && error.key == "doc", "\(error)")
        try restore()
        #expect(try b.data(for: "doc") == theirs)
        #expect(try tiersHolding("doc", in: a) == [.files])
    }

    /// A write into the records tier checks, in its own statement, that the writer still holds the key's lock: a
    /// machine whose session ended just before its records write (while another machine put the key in files)
    /// writes nothing there — no copy beside the other machine's — and fails with `lock-lost`.
    @Test func aRecordsWriteAfterTheLockWasLostWritesNothing() throws {
        let (fleet, catalog, a, b) = try twoMachines()
        let file = Data(repeating: 0x41, count: 200_000)
        try a.put(file, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: file.count))
        let theirs = Data(repeating: 0x42, count: 300_000)
        let restore = try interrupt(a, on: catalog, in: fleet, at: .put, of: .records) { key in
            try b.put(theirs, for: key, as: DataDescriptor(kind: .file, estimatedSize: theirs.count))
        }
        let row = Data(#"{"title":"a row"}"#.utf8)
        let error = try #require(throws: StorageError.self) {
            try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        }
        #expect(error.code == .lockLost && error.key == "doc", "\(error)")
        try restore()
        #expect(try b.data(for: "doc") == theirs)
        #expect(try tiersHolding("doc", in: b) == [.files])
        #expect(try b.verifyCatalog().isSound)
    }

    /// Machines `a` and `b` of a new fleet, and `a`'s catalog (to end the session a key's lock of `a` is held in).
    func twoMachines() throws -> (fleet: Fleet, catalog: PostgresCatalog, a: Storage, b: Storage) {
        let fleet = try Fleet()
        let catalog = try PostgresCatalog(fleet.postgres)
        return (fleet, catalog, try fleet.machine("a", catalog: catalog), try fleet.machine("b"))
    }

    /// Has `machine`'s `tier` interrupt its next `step`: the server ends the session holding the key's lock (on
    /// `catalog`, the machine's), then `then` runs, on the thread making the step.
    /// - Returns: What makes the tier's own backend active again.
    func interrupt(
        _ machine: Storage, on catalog: PostgresCatalog, in fleet: Fleet, at step: InterruptingBackend.Step,
        of tier: Tier, then: @escaping @Sendable (_ key: String) throws -> Void
    ) throws -> () throws -> Void {
        let killer = try PostgresCatalog(fleet.postgres)
        let inner = try machine.registry.backend(for: tier)
        machine.registry.register(tier, name: "interrupted") { _ in
            InterruptingBackend(inner: inner, step: step) { key in
                let pid = try #require(catalog.sessions.current()).serverProcessID
                _ = try killer.pool.with {
                    try $0.query("SELECT pg_terminate_backend($1::int4, 5000)", [.text(String(pid))], operation: "test")
                }
                try then(key)
            }
        }
        return { try machine.registry.activate(tier, name: inner.name) }
    }

    /// Many puts of a few keys from two machines at once, each value crossing the tier boundary: afterwards every
    /// key is in one tier, where the catalog says, and both machines read the same value.
    @Test func concurrentPutsFromTwoMachinesLeaveOneCopyEach() throws {
        let fleet = try Fleet()
        let machines = [try fleet.machine("a"), try fleet.machine("b")]
        let keys = ["hot-0", "hot-1", "hot-2"]
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let storage = machines[worker % 2]
            for round in 0..<12 {
                let key = keys[(worker + round) % keys.count]
                let isFile = (worker + round) % 2 == 0
                let value = Data("\(worker)-\(round)".utf8) + (isFile ? Data(repeating: 7, count: 300_000) : Data())
                let descriptor =
                    isFile
                    ? DataDescriptor(kind: .file, estimatedSize: value.count)
                    : DataDescriptor(kind: .relational, estimatedSize: value.count)
                #expect(throws: Never.self) { try storage.put(value, for: key, as: descriptor) }
            }
        }
        for key in keys {
            let tiers = try tiersHolding(key, in: machines[0])
            #expect(tiers.count == 1, "\(key) is in \(tiers)")
            #expect(try machines[0].location(of: key)?.tier == tiers.first)
            #expect(try machines[0].data(for: key) == machines[1].data(for: key))
        }
        #expect(try machines[1].verifyCatalog().isSound)
    }

    /// A machine that dies in the middle of a move leaves a row with the move on the server; the next machine to
    /// open the store settles it: undone when the new place was not committed, finished when it was.
    @Test(arguments: [false, true])
    func aMoveADeadMachineLeftIsSettledByAnother(committed: Bool) throws {
        let fleet = try Fleet()
        let a = try fleet.machine("a")
        let file = Data(repeating: 0x46, count: 200_000)
        let row = Data(#"{"moved":true}"#.utf8)
        try a.put(file, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: file.count))
        // What a move files → records does up to its crash: the intent, the copy, and maybe the commit.
        try a.catalog.record([.intent(key: "doc", from: .files, to: .records)], durable: true)
        try a.catalog.withKeyLock("doc") { try a.backend(for: .records).put(row, for: "doc") }
        if committed {
            let placed = StorageLocation(
                key: "doc", tier: .records, backend: "postgres", ruleID: "relational-to-records", kind: .relational,
                contentType: nil, size: row.count, modified: Date())
            try a.catalog.record([.set(placed)], durable: true)
        }

        let b = try fleet.machine("b")
        #expect(try b.catalog.unsettledKeys().isEmpty)
        #expect(try b.data(for: "doc") == (committed ? row : file))
        #expect(try tiersHolding("doc", in: b) == [committed ? .records : .files])
        #expect(try a.data(for: "doc") == (committed ? row : file))
    }
}

extension SharedCatalogStorageTests {
    /// A capture of a machine of the shared store holds the shared catalog as the file catalog's log, with the records
    /// and files it places: restored into a local store, every key reads back from the tier it was in.
    @Test func aCaptureOfASharedStoreRestoresIntoALocalOne() throws {
        let fleet = try Fleet()
        let a = try fleet.machine("a")
        let b = try fleet.machine("b")
        let row = Data(#"{"name":"row"}"#.utf8)
        let file = Data(repeating: 0x66, count: 250_000)
        try a.put(row, for: "row", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        try b.put(file, for: "file", as: DataDescriptor(kind: .file, estimatedSize: file.count))
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        let report = try a.capture(into: capture)
        #expect(report.missingKeys.isEmpty)

        let restored = fleet.directory.appending("restored")
        try Storage.restore(from: capture, to: restored, secretsKey: testSecretsKey)
        let local = try Storage(root: restored, secretsKey: testSecretsKey)
        #expect(try local.location(of: "row")?.tier == .records)
        #expect(try local.location(of: "file")?.tier == .files)
        #expect(try local.data(for: "row") == row)
        #expect(try local.data(for: "file") == file)
        #expect(try local.verifyCatalog().isSound)
    }
}

/// One shared store for a test: a schema of its own on the test server (catalog and records) and a prefix of its own
/// on the test gateway (files), and a root per machine.
final class Fleet: Sendable {
    let directory: TemporaryDirectory
    let postgres: PostgresConfiguration
    let recordsURL: String
    let filesURL: String

    /// A store on the server `STRATA_POSTGRES_URL` names, or on `server` (a test's own).
    init(server: String? = nil) throws {
        directory = try TemporaryDirectory(prefix: "strata-fleet")
        let schema = "f_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let server = server ?? ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
        postgres = PostgresConfiguration(connectionString: server, schema: schema)
        recordsURL = server + (server.contains("?") ? "&" : "?") + "strata_schema=" + schema
        filesURL = (ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "") + schema + "/"
    }

    deinit { _ = try? PostgresRecordEngine.dropStore(postgres) }

    /// Declares machine `name`'s root shared, as `strata init --shared` does (the catalog, defaults and secrets on
    /// the server, records in this fleet's schema, files under its prefix), and opens it as a program would.
    @discardableResult
    func sharedMachine(_ name: String) throws -> Storage {
        let root = directory.appending(name)
        if try StoreConfiguration.read(from: StoragePaths(root: root)) == nil {
            try sharedConfiguration.write(to: StoragePaths(root: root))
        }
        return try Storage(root: root, secretsKey: testSecretsKey)
    }

    /// The configuration `strata init --shared` writes for this fleet's schema and prefix.
    var sharedConfiguration: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.catalog.isShared = true
        configuration.defaults.backend = "postgres"
        configuration.secrets.backend = "postgres"
        configuration.records.backend = "postgres"
        configuration.records.url = recordsURL
        configuration.files.backend = "s3"
        configuration.files.url = filesURL
        return configuration
    }

    /// Opens the store on machine `name`: its own root, the shared catalog (through `catalog`, or an instance of its
    /// own), records and files.
    func machine(_ name: String, catalog: PostgresCatalog? = nil) throws -> Storage {
        try Storage(
            root: directory.appending(name), secretsKey: testSecretsKey, recordsURL: recordsURL, filesURL: filesURL,
            catalog: catalog ?? PostgresCatalog(postgres))
    }
}

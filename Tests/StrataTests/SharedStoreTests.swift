import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataCatalogPostgres
@testable import StrataDefaultsPostgres
@testable import StrataSecretsPostgres

/// A store declared shared (`[catalog] shared = true` in `strata.conf`, `StoreConfiguration.catalog.isShared`): its
/// catalog is on the records' PostgreSQL server, every tier it uses is one machines share, and a configuration that
/// would keep a tier on one machine is refused at open, naming the setting.
@Suite("A declared shared store")
struct SharedStoreTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-shared") }

    /// A configuration file round-trips `[catalog] shared = true`; a store that is not shared writes no such section.
    @Test func theFileKeepsTheDeclaration() throws {
        var configuration = StoreConfiguration()
        #expect(!(try configuration.rendered()).contains("[catalog]"))
        configuration.catalog.isShared = true
        let text = try configuration.rendered()
        #expect(text.hasSuffix("[catalog]\nshared = true\n"), "\(text)")
        #expect(try StoreConfiguration.parse(Data(text.utf8)).catalog.isShared)
        let local = try StoreConfiguration.parse(Data("version = 1\n[catalog]\nshared = false\n".utf8))
        #expect(!local.catalog.isShared)
    }

    @Test(arguments: ["maybe", "yes", "1", "TRUE"])
    func aSharedValueThatIsNotABooleanIsRefusedWithItsLine(_ value: String) throws {
        let refused = #expect(throws: StorageError.self) {
            try StoreConfiguration.parse(Data("version = 1\n\n[catalog]\nshared = \(value)\n".utf8), path: "/x.conf")
        }
        #expect(refused?.code == .corrupt)
        #expect(refused?.line == 4)
        #expect(refused?.path == "/x.conf")
    }

    /// A shared store whose records would stay in SQLite under the root, or whose files would stay in the folder
    /// under it, is refused at open with the setting and its line; nothing is created on the way.
    @Test func aSharedStoreWithAMachineLocalTierIsRefusedNamingTheSetting() throws {
        let root = directory.appending("mixed")
        var configuration = StoreConfiguration()
        configuration.catalog.isShared = true
        try configuration.write(to: StoragePaths(root: root))
        let records = #expect(throws: StorageError.self) {
            try Storage(root: root, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        }
        #expect(records?.code == .invalidArgument)
        #expect(records?.tier == .records)
        #expect(try records?.line == lineOf("backend = sqlite", in: root))
        #expect(records?.description.contains("records") == true)
        #expect(records?.recovery?.contains("--shared --records-url-variable") == true)
        #expect(!FileManager.default.fileExists(atPath: root + "/catalog"), "no file catalog was made")

        configuration.records.backend = "postgres"
        configuration.records.url = "postgresql://nobody@127.0.0.1:1/none"
        try configuration.write(to: StoragePaths(root: root))
        let files = #expect(throws: StorageError.self) {
            try Storage(root: root, secretsKey: testSecretsKey, filesURL: "")
        }
        #expect(files?.code == .invalidArgument)
        #expect(files?.tier == .files)
        #expect(try files?.line == lineOf("backend = filesystem", in: root))
        #expect(files?.recovery?.contains("s3://") == true)
    }

    /// A shared store whose defaults would stay in the suite file under the root is refused, naming the setting.
    @Test func aSharedStoreWithDefaultsInAFileIsRefused() throws {
        guard let server = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable], !server.isEmpty,
            let files = ProcessInfo.processInfo.environment["STRATA_S3_URL"], !files.isEmpty
        else { return }
        let root = directory.appending("plist")
        var configuration = StoreConfiguration()
        configuration.catalog.isShared = true
        configuration.records.backend = "postgres"
        configuration.records.url = server + "?strata_schema=never_" + String(UInt32.random(in: 0...UInt32.max))
        configuration.files.backend = "s3"
        configuration.files.url = files + "never/"
        try configuration.write(to: StoragePaths(root: root))
        let refused = #expect(throws: StorageError.self) { try Storage(root: root, secretsKey: testSecretsKey) }
        #expect(refused?.code == .noBackend && refused?.tier == .defaults)
        #expect(try refused?.line == lineOf("backend = plist", in: root))
        #expect(refused?.description.contains("not one that machines share") == true, "\(String(describing: refused))")
        _ = try? PostgresRecordEngine.dropStore(PostgresConfiguration(connectionString: configuration.records.url!))
    }

    /// Registering the built-ins with records on PostgreSQL makes that the records backend and leaves the defaults
    /// tier on its suite file: the defaults engine on the server is active only where a configuration names it.
    @Test func registeringWithRecordsOnPostgresKeepsDefaultsInTheSuiteFile() throws {
        let registry = BackendRegistry(paths: try StoragePaths(root: directory.appending("registry")))
        Storage.registerBuiltInBackends(in: registry, recordsURL: "postgresql://nobody@127.0.0.1:1/none")
        let active = registry.registrations.filter(\.isActive).map(\.description).sorted()
        #expect(
            active == [
                "defaults/plist (active)", "files/filesystem (active)", "records/postgres (active)",
                "secrets/sodium (active)",
            ])
        #expect(registry.registrations.contains { $0.tier == .defaults && $0.name == "postgres" && !$0.isActive })
    }

    /// The line of the store's `strata.conf` that reads `text`.
    func lineOf(_ text: String, in root: String) throws -> Int? {
        let file = try String(contentsOfFile: root + "/" + StoreConfiguration.fileName, encoding: .utf8)
        return file.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == text }.map { $0 + 1 }
    }
}

/// Two machines of a declared shared store, opened the way a program opens any store: `Storage(root:)` reading each
/// root's `strata.conf`.
@Suite(
    .enabled(
        if: !(ProcessInfo.processInfo.environment["STRATA_S3_URL"] ?? "").isEmpty
            && !(ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? "").isEmpty,
        "needs STRATA_S3_URL and STRATA_POSTGRES_URL (Scripts/test.sh starts both)"))
struct DeclaredSharedStoreTests {
    /// The gateway stays up for each test: its clients retry a few times only.
    let gateway = S3GatewayHold(.steady)

    /// Machine `name` of the fleet, declared shared and opened as a program would.
    func machine(_ name: String, of fleet: Fleet) throws -> Storage { try fleet.sharedMachine(name) }

    /// The issue's table through the public API: each machine reads what the other wrote last, whichever tier it
    /// went to, and a key has one copy; preferences and credentials too, in the suite and keyring on the server
    /// (the credential sealed on the machines, with the key they share).
    @Test func theIssuesTableThroughThePublicAPI() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        let b = try machine("b", of: fleet)
        let document = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(
            try a.put(document, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: document.count)).tier
                == .files)
        #expect(try b.data(for: "doc") == document)
        let row = Data(#"{"n":1}"#.utf8)
        #expect(
            try a.put(row, for: "doc", as: DataDescriptor(kind: .relational, estimatedSize: row.count)).tier == .records
        )
        #expect(try b.data(for: "doc") == row)
        let large = Data(repeating: 0x33, count: 3 << 20)
        #expect(
            try b.put(large, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: large.count)).tier == .files)
        #expect(try a.data(for: "doc") == large)
        #expect(try a.backend(for: .records).data(for: "doc") == nil, "the records copy went with the move")
        #expect(try a.keys(prefix: "do") == ["doc"])
        #expect(try b.verifyCatalog().isSound)

        // A preference is in the shared suite on the server: B reads it, typed or as bytes.
        let theme = Data("dark".utf8)
        #expect(
            try a.put(theme, for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4)).tier == .defaults)
        #expect(try b.data(for: "theme") == theme)
        #expect(try b.location(of: "theme")?.backend == "postgres")
        let shared = try #require(b.sharedDefaults)
        try shared.set(.integer(3), forKey: "launches")
        #expect(try a.sharedDefaults?.object(forKey: "launches") == .integer(3))
        #expect(try a.data(for: "launches") == Data("3".utf8))
        // A credential is in the keyring on the server: B reads it, through the facade or the typed API.
        #expect(
            try a.put(Data("tok_9".utf8), for: "api/token", as: DataDescriptor(kind: .credential, estimatedSize: 5))
                .tier == .secrets)
        #expect(try b.data(for: "api/token") == Data("tok_9".utf8))
        #expect(try b.location(of: "api/token")?.backend == "postgres")
        let keyring = try #require(b.sharedSecrets)
        try keyring.set("hunter2", service: "db.internal", account: "app")
        #expect(try a.sharedSecrets?.get(service: "db.internal", account: "app")?.stringValue == "hunter2")
        #expect(
            try a.sharedSecrets?.get(service: SecretStore.storageBackendService, account: "api/token")?.data
                == Data("tok_9".utf8))
        // This machine's own suite and keyring under the root refuse the keys the catalog places (the suite's
        // keys, the keyring's `strata.storage` items): a value there would be this machine's alone.
        let typed = #expect(throws: StorageError.self) { try a.defaults.set(.string("dark"), forKey: "volume") }
        #expect(typed?.code == .noBackend && typed?.tier == .defaults)
        #expect(typed?.recovery?.contains("sharedDefaults") == true)
        let secret = #expect(throws: StorageError.self) {
            try a.secrets.set(Secret("tok"), service: SecretStore.storageBackendService, account: "api/token")
        }
        #expect(secret?.code == .noBackend && secret?.tier == .secrets)
        #expect(secret?.recovery?.contains("sharedSecrets") == true)
        #expect(try b.keys(prefix: "") == ["api/token", "doc", "launches", "theme"])
        #expect(try a.delete("api/token"))
        #expect(try b.data(for: "api/token") == nil)
        #expect(try a.verifyCatalog().isSound)
    }

    /// A read of a preference in a shared store is one round trip: the catalog's statement reads the key's tier, the
    /// change counter and the suite's value together (they are in one schema on one server).
    @Test func aReadOfAPreferenceIsOneRoundTrip() throws {
        let fleet = try Fleet()
        let (a, b) = (try machine("a", of: fleet), try machine("b", of: fleet))
        try b.put(Data("dark".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        let catalog = try #require(a.catalog as? PostgresCatalog)
        let defaults = try #require(a.sharedDefaults)
        #expect(try a.data(for: "theme") == Data("dark".utf8))
        let before = catalog.pool.idleRoundTrips() + defaults.pool.idleRoundTrips()
        #expect(try a.data(for: "theme") == Data("dark".utf8))
        #expect(catalog.pool.idleRoundTrips() + defaults.pool.idleRoundTrips() - before == 1)
        try b.sharedDefaults?.set(.integer(5), forKey: "theme")
        #expect(try a.data(for: "theme") == Data("5".utf8), "the byte form of another type")
    }

    /// A read of a credential is one round trip too: the keyring's row and the item come in the catalog's statement
    /// (and are opened and checked there as the keyring's own read checks them). Another machine's write, a change
    /// of the item's tier and a deleted item read right; while the keyring is locked, keys are read as before (the
    /// store's items are `afterFirstUnlock`: the tier still opens them).
    @Test func aReadOfACredentialIsOneRoundTrip() throws {
        let fleet = try Fleet()
        let (a, b) = (try machine("a", of: fleet), try machine("b", of: fleet))
        let credential = DataDescriptor(kind: .credential, estimatedSize: 3)
        try b.put(Data("tok".utf8), for: "api/token", as: credential)
        let catalog = try #require(a.catalog as? PostgresCatalog)
        let secrets = try #require(a.sharedSecrets)
        #expect(try a.data(for: "api/token") == Data("tok".utf8))
        let before = catalog.pool.idleRoundTrips() + secrets.pool.idleRoundTrips()
        #expect(try a.data(for: "api/token") == Data("tok".utf8))
        #expect(catalog.pool.idleRoundTrips() + secrets.pool.idleRoundTrips() - before == 1)
        // B changes it (a new manifest), then moves the key to records, then back, then deletes it.
        try b.put(Data("tk2".utf8), for: "api/token", as: credential)
        #expect(try a.data(for: "api/token") == Data("tk2".utf8))
        try b.put(
            Data(#"{"t":1}"#.utf8), for: "api/token",
            as: DataDescriptor(kind: .relational, estimatedSize: 7, allowsPlaintext: true))
        #expect(try a.data(for: "api/token") == Data(#"{"t":1}"#.utf8))
        try b.put(Data("tk3".utf8), for: "api/token", as: credential)
        #expect(try a.data(for: "api/token") == Data("tk3".utf8))
        #expect(try b.delete("api/token"))
        #expect(try a.data(for: "api/token") == nil)
        // Records read on while the keyring is locked, and the credential through the tier.
        try b.put(Data("tok".utf8), for: "api/token", as: credential)
        try b.put(Data(#"{"n":1}"#.utf8), for: "row", as: DataDescriptor(kind: .relational, estimatedSize: 7))
        secrets.lock()
        #expect(try a.data(for: "row") == Data(#"{"n":1}"#.utf8))
        #expect(try a.data(for: "api/token") == Data("tok".utf8), "stored afterFirstUnlock: read through the tier")
    }

    /// The catalog is one store's: a root that names another files location for the same schema (a typo on one
    /// machine) is refused before it drops any entry.
    @Test func aRootThatDisagreesWithTheSharedStoreIsRefused() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        try a.put(Data("{}".utf8), for: "row", as: DataDescriptor(kind: .relational, estimatedSize: 2))
        var configuration = try #require(try StoreConfiguration.read(from: a.paths))
        configuration.files.url = fleet.filesURL + "other/"
        let typo = fleet.directory.appending("typo")
        try configuration.write(to: StoragePaths(root: typo))
        let refused = #expect(throws: StorageError.self) { try Storage(root: typo, secretsKey: testSecretsKey) }
        #expect(refused?.code == .invalidArgument && refused?.tier == .files && refused?.attribute == "url")
        #expect(refused?.message.contains(fleet.filesURL) == true, "\(String(describing: refused))")

        // So is a root that names another suite or keyring than the store's.
        for (section, attribute) in [(Tier.defaults, "suite"), (.secrets, "keyring")] {
            var other = try #require(try StoreConfiguration.read(from: a.paths))
            if section == .defaults { other.defaults.suite = "other" } else { other.secrets.keyring = "other" }
            let root = fleet.directory.appending("other-" + attribute)
            try other.write(to: StoragePaths(root: root))
            let named = #expect(throws: StorageError.self) { try Storage(root: root, secretsKey: testSecretsKey) }
            #expect(named?.tier == section && named?.attribute == attribute, "\(String(describing: named))")
        }

        // The same location spelled without its last slash is the same store.
        configuration.files.url = String(fleet.filesURL.dropLast())
        let spelled = fleet.directory.appending("spelled")
        try configuration.write(to: StoragePaths(root: spelled))
        #expect(try Storage(root: spelled, secretsKey: testSecretsKey).location(of: "row")?.tier == .records)

        #expect(try a.location(of: "row")?.tier == .records, "nothing was dropped")
    }

    /// Keys restored from a capture of a one-machine store into a shared store go where the capture kept them, each
    /// tier's on the server: the other machine reads them all, the credential too.
    @Test func aRestoreIntoASharedStorePutsEachKeyOnTheServer() throws {
        let fleet = try Fleet()
        let local = try Storage(
            root: fleet.directory.appending("local"), secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        try local.put(Data("{}".utf8), for: "cfg/a", as: DataDescriptor(kind: .relational, estimatedSize: 2))
        try local.put(Data("tok".utf8), for: "cfg/b", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try local.put(Data("dark".utf8), for: "ui/theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try local.capture(into: capture)
        let shared = try machine("a", of: fleet)
        #expect(
            try shared.restore(keysWithPrefix: "cfg/", from: capture, secretsKey: testSecretsKey) == ["cfg/a", "cfg/b"])
        #expect(try shared.restore(keysWithPrefix: "ui/", from: capture, secretsKey: testSecretsKey) == ["ui/theme"])
        let b = try machine("b", of: fleet)
        #expect(try b.data(for: "ui/theme") == Data("dark".utf8))
        #expect(try b.data(for: "cfg/b") == Data("tok".utf8))
        #expect(try b.location(of: "cfg/b")?.backend == "postgres")
    }

    /// A one-machine store migrated into a shared one: every key lands in the same tier on the servers and reads back
    /// on the other machine; run again, nothing is written; a key another machine changed meanwhile is a conflict,
    /// left unless overwriting; a key lost on the shared side (an interrupted run) is copied again.
    @Test func aLocalStoreMigratesIntoASharedOneResumablyAndVerified() throws {
        let fleet = try Fleet()
        let local = try Storage(
            root: fleet.directory.appending("local"), secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        let document = Data(repeating: 0x41, count: 400 << 10)
        try local.put(Data("dark".utf8), for: "ui/theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        try local.put(Data("tok".utf8), for: "api/token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try local.put(Data(#"{"n":1}"#.utf8), for: "rows/1", as: DataDescriptor(kind: .relational, estimatedSize: 7))
        try local.put(document, for: "docs/a.pdf", as: DataDescriptor(kind: .file, estimatedSize: document.count))
        let a = try machine("a", of: fleet)
        let outcomes = Mutex<[String: MigrationReport.Outcome]>([:])
        let first = try a.migrate(from: local) { key, outcome in outcomes.withLock { $0[key] = outcome } }
        #expect(first.copied.sorted() == ["api/token", "docs/a.pdf", "rows/1", "ui/theme"])
        #expect(first.isComplete && first.verified == 4 && outcomes.withLock { $0.count } == 4)
        let b = try machine("b", of: fleet)
        #expect(try b.data(for: "docs/a.pdf") == document && b.data(for: "api/token") == Data("tok".utf8))
        for (key, tier) in [("ui/theme", Tier.defaults), ("api/token", .secrets), ("rows/1", .records)] {
            #expect(try b.location(of: key)?.tier == tier && b.location(of: key)?.backend == "postgres")
        }
        #expect(try b.location(of: "docs/a.pdf")?.backend == "s3")

        // Run again: nothing to write. Then B changes a key, and one is lost as if the first run stopped before it.
        #expect(try a.migrate(from: local).alreadyThere.count == 4)
        try b.put(Data("light".utf8), for: "ui/theme", as: DataDescriptor(kind: .preference, estimatedSize: 5))
        #expect(try b.delete("rows/1"))
        let resumed = try a.migrate(from: local)
        #expect(resumed.copied == ["rows/1"] && resumed.conflicts == ["ui/theme"] && !resumed.isComplete)
        #expect(try b.data(for: "ui/theme") == Data("light".utf8), "a conflict is left as it is")
        let overwritten = try a.migrate(from: local, overwriting: true)
        #expect(overwritten.copied == ["ui/theme"] && overwritten.isComplete)
        #expect(try b.data(for: "ui/theme") == Data("dark".utf8))
        #expect(try local.keys(prefix: "").count == 4, "the source is only read")
        // What the source keeps outside its keys is named, not copied, and the migration is not complete.
        try local.secrets.set("pw", service: "db.internal", account: "app")
        let outside = try a.migrate(from: local)
        #expect(outside.alreadyThere.count == 4 && !outside.isComplete, "\(outside)")
        #expect(outside.notMigrated.count == 1 && outside.notMigrated[0].contains("other services"), "\(outside)")
        #expect(try b.verifyCatalog().isSound)
        let itself = #expect(throws: StorageError.self) { try a.migrate(from: a) }
        #expect(itself?.code == .invalidArgument)
    }

    /// A capture of a shared store restores into a one-machine store: its catalog is the file the capture wrote, so
    /// the restored configuration no longer declares the store shared, and every key reads back locally.
    /// A capture of a shared store is one instant: the catalog, suites, keyrings and records are copied from one
    /// snapshot after the store's writers were let go, so another machine writes on meanwhile (its writes would
    /// wait for the capture's lock otherwise) and none of its writes is in the capture: values changed, keys added,
    /// removed and moved between tiers all restore as they were at the instant.
    @Test func aCaptureIsOneInstantWhileAnotherMachineWritesOn() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        let b = try machine("b", of: fleet)
        let record = DataDescriptor(kind: .relational, estimatedSize: 8)
        try a.put(Data(#"{"v":1}"#.utf8), for: "row", as: record)
        try a.put(Data(#"{"v":1}"#.utf8), for: "gone", as: record)
        try a.put(Data(#"{"v":1}"#.utf8), for: "moved", as: record)
        try a.put(Data("dark".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        try a.put(Data("tok".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        let document = Data(repeating: 0x31, count: 300 << 10)
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        var interrupted = false
        let sink = InterruptedCaptureSink(capture) {
            try b.put(Data(#"{"v":2}"#.utf8), for: "row", as: record)
            try b.put(Data(#"{"v":2}"#.utf8), for: "late", as: record)
            #expect(try b.delete("gone"))
            try b.put(document, for: "moved", as: DataDescriptor(kind: .file, estimatedSize: document.count))
            try b.put(Data("light".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 5))
            try b.put(Data("tok2".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 4))
            interrupted = true
        }
        try a.capture(into: sink)
        #expect(interrupted)
        #expect(try a.data(for: "row") == Data(#"{"v":2}"#.utf8) && a.location(of: "moved")?.tier == .files)

        let target = fleet.directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 5)
        let restored = try Storage(root: target, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        #expect(try restored.keys() == ["gone", "moved", "row", "theme", "token"])
        #expect(try restored.data(for: "row") == Data(#"{"v":1}"#.utf8))
        #expect(try restored.data(for: "moved") == Data(#"{"v":1}"#.utf8))
        #expect(try restored.location(of: "moved")?.tier == .records)
        #expect(try restored.data(for: "theme") == Data("dark".utf8))
        #expect(try restored.data(for: "token") == Data("tok".utf8))
        #expect(try restored.verifyCatalog().isSound)
    }

    /// A snapshot of a shared store restores into a new shared store (a new schema and S3 prefix) whole: every key
    /// in its tier, what lies outside the keys (a collection, another suite, another keyring, an item of another
    /// service), read on two machines of the new store; the old store is left alone.
    @Test func aCaptureOfASharedStoreRestoresIntoANewSharedStore() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        let document = Data(repeating: 0x5d, count: 300 << 10)
        try a.put(Data(#"{"n":2}"#.utf8), for: "row", as: DataDescriptor(kind: .relational, estimatedSize: 7))
        try a.put(document, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: document.count))
        try a.put(Data("dark".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        try a.put(Data("tok".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try a.sharedSecrets?.set("pw", service: "db", account: "app")
        try PostgresDefaults(suite: "other", configuration: fleet.postgres).set(.integer(7), forKey: "launches")
        let notes = try a.records.collection(RestoredNote.self, named: "notes")
        try notes.insert(RestoredNote(id: "n1", n: 1, text: "kept", tags: [], score: 0))
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try a.capture(into: capture)

        let target = try Fleet()
        let report = try Storage.restore(
            from: capture, toShared: target.directory.appending("a"), configuration: target.sharedConfiguration,
            secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 4 && report.uncheckedKeys.isEmpty)
        let restoredA = try target.sharedMachine("a")
        let restoredB = try target.sharedMachine("b")
        #expect(try restoredB.keys() == ["doc", "row", "theme", "token"])
        #expect(try restoredB.data(for: "doc") == document && restoredB.location(of: "doc")?.backend == "s3")
        #expect(try restoredB.data(for: "token") == Data("tok".utf8))
        #expect(try restoredB.location(of: "token")?.backend == "postgres")
        #expect(try restoredB.data(for: "theme") == Data("dark".utf8))
        #expect(try restoredB.sharedSecrets?.get(service: "db", account: "app")?.stringValue == "pw")
        #expect(
            try PostgresDefaults(suite: "other", configuration: target.postgres).object(forKey: "launches")
                == .integer(7))
        #expect(try restoredB.records.collection(RestoredNote.self, named: "notes").get(id: "n1")?.text == "kept")
        #expect(try restoredA.verifyCatalog().isSound)
        // Machines of the new store write on; the old store is as it was.
        try restoredA.put(Data("light".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 5))
        #expect(try restoredB.data(for: "theme") == Data("light".utf8))
        #expect(try a.data(for: "theme") == Data("dark".utf8))
    }

    /// A restore into a shared store writes only into a new one: a schema that holds anything, or an S3 prefix that
    /// does, is refused (a refusal after the records' load drops what it wrote, and leaves no root); a
    /// configuration that is not shared is refused; so is a capture whose SQLite records hold collections. A
    /// one-machine store's capture without collections restores.
    @Test func aRestoreIntoASharedStoreWritesOnlyIntoANewOne() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        try a.put(Data(#"{"n":1}"#.utf8), for: "row", as: DataDescriptor(kind: .relational, estimatedSize: 7))
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try a.capture(into: capture)
        let taken = #expect(throws: StorageError.self) {
            try Storage.restore(
                from: capture, toShared: fleet.directory.appending("again"), configuration: fleet.sharedConfiguration,
                secretsKey: testSecretsKey)
        }
        #expect(
            taken?.code == .conflict && taken?.message.contains(fleet.postgres.schema) == true,
            "\(String(describing: taken))")

        // The prefix holds an object: refused after the records' load, which is dropped; the root `strata init`
        // made is left as it was, and once the prefix is empty the same restore succeeds.
        let target = try Fleet()
        let occupied = try target.sharedMachine("first")
        let stray = Data(repeating: 1, count: 300 << 10)
        try occupied.put(stray, for: "f", as: DataDescriptor(kind: .file, estimatedSize: stray.count))
        _ = try PostgresRecordEngine.dropStore(target.postgres)
        let root = target.directory.appending("a")
        try target.sharedConfiguration.write(to: StoragePaths(root: root))
        let written = FileManager.default.contents(atPath: root + "/strata.conf")
        let prefix = #expect(throws: StorageError.self) {
            try Storage.restore(
                from: capture, toShared: root, configuration: target.sharedConfiguration, secretsKey: testSecretsKey)
        }
        #expect(prefix?.code == .conflict && prefix?.tier == .files, "\(String(describing: prefix))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["strata.conf"])
        #expect(FileManager.default.contents(atPath: root + "/strata.conf") == written)
        #expect(try !PostgresRecordEngine.dropStore(target.postgres), "the loaded schema was dropped, not made again")
        let leftover = try Storage(
            root: target.directory.appending("cleaner"), secretsKey: testSecretsKey, recordsURL: "",
            filesURL: target.filesURL)
        #expect(try leftover.files.delete("f"))
        try Storage.restore(
            from: capture, toShared: root, configuration: target.sharedConfiguration, secretsKey: testSecretsKey)
        #expect(try target.sharedMachine("b").data(for: "row") == Data(#"{"n":1}"#.utf8))

        var local = fleet.sharedConfiguration
        local.catalog.isShared = false
        let unshared = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, toShared: fleet.directory.appending("b"), configuration: local)
        }
        #expect(unshared?.code == .invalidArgument && unshared?.message.contains("catalog.shared") == true)

        // A one-machine store: its values restore; with a collection, it is refused before anything is written.
        let one = try Storage(
            root: fleet.directory.appending("one"), secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        try one.put(Data(#"{"n":3}"#.utf8), for: "row", as: DataDescriptor(kind: .relational, estimatedSize: 7))
        try one.put(Data("dark".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        let oneCapture = try FolderCapture(folder: fleet.directory.appending("one-capture"))
        try one.capture(into: oneCapture)
        let fresh = try Fleet()
        try Storage.restore(
            from: oneCapture, toShared: fresh.directory.appending("a"), configuration: fresh.sharedConfiguration,
            secretsKey: testSecretsKey)
        let restored = try fresh.sharedMachine("b")
        #expect(
            try restored.data(for: "row") == Data(#"{"n":3}"#.utf8)
                && restored.location(of: "row")?.backend == "postgres")
        #expect(try restored.data(for: "theme") == Data("dark".utf8))
        try one.records.collection(RestoredNote.self, named: "notes").insert(
            RestoredNote(id: "n1", n: 1, text: "t", tags: [], score: 0))
        let withCollection = try FolderCapture(folder: fleet.directory.appending("one-capture-2"))
        try one.capture(into: withCollection)
        let other = try Fleet()
        let collections = #expect(throws: StorageError.self) {
            try Storage.restore(
                from: withCollection, toShared: other.directory.appending("a"),
                configuration: other.sharedConfiguration,
                secretsKey: testSecretsKey)
        }
        #expect(collections?.code == .invalidArgument && collections?.message.contains("notes") == true)
        #expect(try !PostgresRecordEngine.dropStore(other.postgres), "nothing was written")
    }

    /// The new shared store keeps the snapshot's suite and keyring names (its keys are in them) and limits large
    /// enough for its suites; a capture taken without the secrets key still holds the keyring on the server
    /// (sealed: no key is needed to copy it).
    @Test func aRestoreIntoASharedStoreKeepsTheSnapshotsNamesAndAKeylessCaptureItsKeyring() throws {
        let fleet = try Fleet()
        var named = StoreConfiguration()
        named.defaults.suite = "app"
        named.secrets.keyring = "vault"
        named.selector.defaults.valueLimit = 128 << 10
        let oneRoot = fleet.directory.appending("one")
        try named.write(to: StoragePaths(root: oneRoot))
        let one = try Storage(root: oneRoot, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        let wide = Data(repeating: 0x61, count: 100 << 10)
        try one.put(wide, for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: wide.count))
        try one.put(Data("tok".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        #expect(try one.location(of: "theme")?.tier == .defaults)
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try one.capture(into: capture)
        let target = try Fleet()
        try Storage.restore(
            from: capture, toShared: target.directory.appending("a"), configuration: target.sharedConfiguration,
            secretsKey: testSecretsKey)
        let restored = try Storage(root: target.directory.appending("a"), secretsKey: testSecretsKey)
        #expect(restored.configuration.defaults.suite == "app" && restored.configuration.secrets.keyring == "vault")
        #expect(try restored.data(for: "theme") == wide && restored.data(for: "token") == Data("tok".utf8))
        // The one-machine keyring kept the item in its manifest: it is a row now, and written on like any other.
        try restored.put(Data("tk2".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try restored.put(Data("new".utf8), for: "other", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        // Another machine needs the same names: `strata init --shared` alone writes the built-in ones, refused.
        let refused = #expect(throws: StorageError.self) { try target.sharedMachine("b") }
        #expect(refused?.code == .invalidArgument && refused?.attribute == "suite", "\(String(describing: refused))")
        let b = try Storage(
            root: target.directory.appending("b2"), secretsKey: testSecretsKey, configuration: restored.configuration)
        #expect(try b.data(for: "token") == Data("tk2".utf8))

        // A capture of that shared store by a process without the key: the keyring rows are in it, and restore.
        let keyless = try Storage(root: target.directory.appending("a"))
        let sealed = try FolderCapture(folder: fleet.directory.appending("sealed"))
        try keyless.capture(into: sealed)
        #expect(sealed.files.contains { $0.path == "secrets/vault/keyring.json" }, "\(sealed.files.map(\.path))")
        #expect(!FileManager.default.fileExists(atPath: target.directory.appending("a") + "/secrets"))
        let back = fleet.directory.appending("back")
        try Storage.restore(from: sealed, to: back, secretsKey: testSecretsKey)
        let local = try Storage(root: back, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        #expect(try local.data(for: "token") == Data("tk2".utf8) && local.data(for: "other") == Data("new".utf8))
        #expect(try local.verifyCatalog().isSound)
    }

    /// Keyrings go onto the server with the key through their own reads, whatever state their folder is in (here an
    /// item the capture left out, `ThisDeviceOnly`, which the manifest still lists); without a key they are loaded
    /// byte for byte only when the server's keyring reads them as the folder's would — a shared store's snapshot,
    /// whose credentials are then reported unchecked — and refused otherwise (`locked`), before the store is used.
    @Test func keyringsGoOntoTheServerWithTheirKeyOrByteForByte() throws {
        let fleet = try Fleet()
        let one = try Storage(
            root: fleet.directory.appending("one"), secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        try one.put(Data("tok".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try one.secrets.set("local", service: "device", account: "pin", accessibility: .whenUnlockedThisDeviceOnly)
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        #expect(try one.capture(into: capture).omissions.count == 1)

        let keyless = try Fleet()
        let refused = #expect(throws: StorageError.self) {
            try Storage.restore(
                from: capture, toShared: keyless.directory.appending("a"), configuration: keyless.sharedConfiguration)
        }
        #expect(refused?.code == .locked && refused?.tier == .secrets, "\(String(describing: refused))")
        #expect(try !PostgresRecordEngine.dropStore(keyless.postgres), "the schema was dropped")

        let keyed = try Fleet()
        try Storage.restore(
            from: capture, toShared: keyed.directory.appending("a"), configuration: keyed.sharedConfiguration,
            secretsKey: testSecretsKey)
        let a = try keyed.sharedMachine("a")
        #expect(try a.data(for: "token") == Data("tok".utf8) && a.keys() == ["token"])
        #expect(try a.verifyCatalog().isSound)

        // The shared store's own snapshot loads without a key, its credential unchecked, and reads with it.
        let shared = try FolderCapture(folder: fleet.directory.appending("shared"))
        try a.capture(into: shared)
        let copy = try Fleet()
        let report = try Storage.restore(
            from: shared, toShared: copy.directory.appending("a"), configuration: copy.sharedConfiguration)
        #expect(report.uncheckedKeys == ["token"], "\(report)")
        #expect(try copy.sharedMachine("b").data(for: "token") == Data("tok".utf8))
    }

    @Test func aCaptureOfASharedStoreRestoresIntoALocalOne() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        let row = Data(#"{"n":2}"#.utf8)
        let document = Data(repeating: 0x5c, count: 300 << 10)
        try a.put(row, for: "row", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        try a.put(document, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: document.count))
        try a.put(Data("dark".utf8), for: "theme", as: DataDescriptor(kind: .preference, estimatedSize: 4))
        try a.sharedDefaults?.set(.integer(7), forKey: "launches")
        try a.put(Data("tok".utf8), for: "token", as: DataDescriptor(kind: .credential, estimatedSize: 3))
        try a.sharedSecrets?.set("pw", service: "db", account: "app")
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try a.capture(into: capture)
        let target = fleet.directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 5)
        let configuration = try #require(try StoreConfiguration.read(from: StoragePaths(root: target)))
        #expect(!configuration.catalog.isShared)
        #expect(configuration.records.backend == "sqlite" && configuration.files.backend == "filesystem")
        #expect(configuration.defaults.backend == "plist" && configuration.secrets.backend == "sodium")
        let restored = try Storage(root: target, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        #expect(try restored.data(for: "row") == row)
        #expect(try restored.data(for: "doc") == document)
        #expect(try restored.data(for: "theme") == Data("dark".utf8))
        #expect(restored.defaults.object(forKey: "launches") == .integer(7))
        #expect(try restored.location(of: "theme")?.backend == "plist")
        #expect(try restored.data(for: "token") == Data("tok".utf8))
        #expect(try restored.location(of: "token")?.backend == "sodium")
        #expect(try restored.secrets.get(service: "db", account: "app")?.stringValue == "pw")
        #expect(try restored.verifyCatalog().isSound)
    }
}

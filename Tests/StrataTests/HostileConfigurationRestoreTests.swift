import Foundation
import Strata
import StrataCatalog
import StrataPostgresClient
import StrataTestSupport
import Testing

@testable import StrataPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A snapshot is data: a restore builds the new store from the snapshot's files and the target it is given, never
/// from the configuration inside the snapshot. A captured `strata.conf` naming a PostgreSQL server (by a variable
/// set where the restore runs, or by URL) and a committed move out of records to settle made a restore connect to
/// that server, delete the moved key's row and leave the new store pointing at it; a crafted URL made it create a
/// schema there.
@Suite(
    "Storage: a restore never acts on the snapshot's configuration",
    .enabled(if: RecordEngineKind.available.contains(.postgres)))
final class HostileConfigurationRestoreTests {
    let directory: TemporaryDirectory
    let url = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable] ?? ""
    let schema = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    var server: PostgresConfiguration { PostgresConfiguration(connectionString: url, schema: schema) }
    var root: String { directory.appending("store") }

    init() throws { directory = try TemporaryDirectory(prefix: "strata-hostile-conf") }

    deinit { _ = try? PostgresRecordEngine.dropStore(server) }

    /// `url` with the test's schema.
    var schemaURL: String { url + (url.contains("?") ? "&" : "?") + "strata_schema=" + schema }

    /// A capture of a local store whose `strata.conf` says `settings` (records on a server) and whose catalog holds a
    /// committed, unsettled move of `notes/n1` out of records into files.
    func hostileCapture(_ settings: String) throws -> FolderCapture {
        let storage = try Storage(root: root, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        try storage.put(Data("note".utf8), for: "notes/n1", as: descriptorForTier[.records]!)
        try storage.put(Data("pref".utf8), for: "theme", as: descriptorForTier[.defaults]!)
        try storage.backend(for: .defaults).flush()
        // The move's new copy, then its commit; the old copy's removal and the settle never came.
        try OutsideHands.writeFile("notes/n1", Data("note".utf8), root: root)
        try storage.catalog.record([.intent(key: "notes/n1", from: .records, to: .files)], durable: true)
        var moved = try #require(try storage.catalog.location(of: "notes/n1"))
        moved.tier = .files
        moved.backend = "filesystem"
        try storage.catalog.record([.set(moved)], durable: true)
        try Data(("version = 1\n" + settings).utf8).write(to: URL(fileURLWithPath: root + "/strata.conf"))
        let capture = try FolderCapture(folder: directory.appending("capture"))
        try storage.capture(into: capture)
        return capture
    }

    @Test func aCapturedVariableNamingAServerIsNeverUsed() throws {
        // The server holds a row under the moved key, in a schema of its own.
        try PostgresRecordEngine.store(server).put(Data("server row".utf8), for: "notes/n1")
        let variable = "STRATA_HOSTILE_\(UInt32.random(in: 0...UInt32.max))"
        setenv(variable, schemaURL, 1)
        defer { unsetenv(variable) }
        let capture = try hostileCapture("[records]\nbackend = postgres\nurl-variable = \(variable)\n")
        let target = directory.appending("restored")
        try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(try PostgresRecordEngine.store(server).data(for: "notes/n1") == Data("server row".utf8))
        let restoredConfiguration = try #require(try StoreConfiguration.read(from: StoragePaths(root: target)))
        #expect(restoredConfiguration.records.backend == "sqlite" && restoredConfiguration.records.urlVariable == nil)
        let restored = try Storage(root: target, secretsKey: testSecretsKey)
        #expect(restored.records.name == "sqlite")
        #expect(try restored.location(of: "notes/n1")?.tier == .files)
        #expect(try restored.data(for: "notes/n1") == Data("note".utf8))
        #expect(try restored.data(for: "theme") == Data("pref".utf8))
        #expect(try restored.verifyCatalog().isSound)
    }

    @Test func aCapturedURLCreatesNothingOnItsServer() throws {
        let capture = try hostileCapture("[records]\nbackend = postgres\nurl = \(schemaURL)\n")
        try Storage.restore(from: capture, to: directory.appending("restored"), secretsKey: testSecretsKey)
        let probe = try PostgresConnection(PostgresConfiguration(connectionString: url).client)
        defer { probe.close() }
        let found = try probe.query(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '\(schema)'", operation: "probe")
        #expect(found.text(0, 0) == "0", "the restore created the schema named by the snapshot")
        let restoredConfiguration = try #require(
            try StoreConfiguration.read(from: StoragePaths(root: directory.appending("restored"))))
        #expect(restoredConfiguration.records.url == nil && restoredConfiguration.records.backend == "sqlite")
    }

    /// A captured configuration that does not read (or names a store outside the root) fails the restore, naming
    /// the file, and leaves nothing behind.
    @Test(arguments: ["[records]\nstore = ../../tmp/x\n", "[records]\nbackend = postgres\nbogus = 1\n"])
    func aCapturedConfigurationThatDoesNotReadFailsTheRestore(_ settings: String) throws {
        let capture = try hostileCapture(settings)
        let target = directory.appending("restored")
        let error = #expect(throws: StorageError.self) {
            try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .corrupt && error?.path == "strata.conf", "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: target))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(".strata-restore-")
        }
        #expect(leftovers.isEmpty)
    }
}

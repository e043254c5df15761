import Foundation
import Strata
import StrataTestSupport
import Testing

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

    /// Writes a shared configuration into the root of machine `name` and opens it as a program would.
    func machine(_ name: String, of fleet: Fleet) throws -> Storage {
        var configuration = StoreConfiguration()
        configuration.catalog.isShared = true
        configuration.records.backend = "postgres"
        configuration.records.url = fleet.recordsURL
        configuration.files.backend = "s3"
        configuration.files.url = fleet.filesURL
        let root = fleet.directory.appending(name)
        try configuration.write(to: StoragePaths(root: root))
        return try Storage(root: root, secretsKey: testSecretsKey)
    }

    /// The issue's table through the public API: each machine reads what the other wrote last, whichever tier it
    /// went to, and a key has one copy; preferences and credentials, which have no shared engine, are refused with
    /// a typed error rather than kept on one machine.
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

        for (kind, tier) in [(DataKind.preference, Tier.defaults), (.credential, .secrets)] {
            let refused = #expect(throws: StorageError.self) {
                try a.put(Data("v".utf8), for: "k-\(tier)", as: DataDescriptor(kind: kind, estimatedSize: 1))
            }
            #expect(refused?.code == .noBackend)
            #expect(refused?.tier == tier)
            #expect(refused?.key == "k-\(tier)")
            #expect(refused?.description.contains("shared") == true, "\(String(describing: refused))")
            #expect(try b.location(of: "k-\(tier)") == nil)
        }
        // Their own APIs refuse the keys the catalog places (the suite's keys, the keyring's `strata.storage`
        // items): a value there would be this machine's, and the catalog every machine reads would place it.
        let typed = #expect(throws: StorageError.self) { try a.defaults.set(.string("dark"), forKey: "theme") }
        #expect(typed?.code == .noBackend && typed?.tier == .defaults)
        let secret = #expect(throws: StorageError.self) {
            try a.secrets.set(Secret("tok"), service: SecretStore.storageBackendService, account: "api/token")
        }
        #expect(secret?.code == .noBackend && secret?.tier == .secrets)
        #expect(try b.keys(prefix: "") == ["doc"])
    }

    /// A capture of a shared store restores into a one-machine store: its catalog is the file the capture wrote, so
    /// the restored configuration no longer declares the store shared, and every key reads back locally.
    @Test func aCaptureOfASharedStoreRestoresIntoALocalOne() throws {
        let fleet = try Fleet()
        let a = try machine("a", of: fleet)
        let row = Data(#"{"n":2}"#.utf8)
        let document = Data(repeating: 0x5c, count: 300 << 10)
        try a.put(row, for: "row", as: DataDescriptor(kind: .relational, estimatedSize: row.count))
        try a.put(document, for: "doc", as: DataDescriptor(kind: .file, estimatedSize: document.count))
        let capture = try FolderCapture(folder: fleet.directory.appending("capture"))
        try a.capture(into: capture)
        let target = fleet.directory.appending("restored")
        let report = try Storage.restore(from: capture, to: target, secretsKey: testSecretsKey)
        #expect(report.verifiedKeys == 2)
        let configuration = try #require(try StoreConfiguration.read(from: StoragePaths(root: target)))
        #expect(!configuration.catalog.isShared)
        #expect(configuration.records.backend == "sqlite" && configuration.files.backend == "filesystem")
        let restored = try Storage(root: target, secretsKey: testSecretsKey, recordsURL: "", filesURL: "")
        #expect(try restored.data(for: "row") == row)
        #expect(try restored.data(for: "doc") == document)
        #expect(try restored.verifyCatalog().isSound)
    }
}

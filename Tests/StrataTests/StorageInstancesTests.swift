import Foundation
import Strata
import StrataTestSupport
import Testing

/// `storage.defaults`, `.secrets`, `.records`, `.files`: the very instances the facade routes to, so a write through
/// either API is seen by the other at once.
@Suite("Storage: one instance per store")
struct StorageInstancesTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-instances") }

    @Test func eachTierPropertyIsTheInstanceTheFacadeUses() throws {
        let storage = try openStorage(root)
        #expect(try storage.defaults === (storage.backend(for: .defaults) as? DefaultsStore))
        #expect(try storage.secrets === (storage.backend(for: .secrets) as? SecretStore))
        #expect(try storage.records === (storage.backend(for: .records) as? RecordStore))
        #expect(try storage.files === (storage.backend(for: .files) as? FileStore))
        #expect(try storage.defaults === storage.defaults, "asked twice, the same instance")
    }

    @Test func aPreferenceWrittenEitherWayIsSeenTheOtherWayAtOnce() throws {
        let storage = try openStorage(root)
        let theme = DefaultsKey("selectedTheme", default: "system")
        try storage.defaults.set("dark", for: theme)
        #expect(try storage.data(for: "selectedTheme") == Data("dark".utf8))
        try storage.put(Data("x".utf8), for: "flag", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(try storage.defaults.object(forKey: "flag") == .data(Data("x".utf8)))
        #expect(try storage.delete("selectedTheme"))
        #expect(try storage.defaults[theme] == "system")
    }

    /// The README's Quick start opens its own `DefaultsStore` next to the facade: it shares the facade's state.
    @Test func aSeparatelyOpenedSuiteSharesTheFacadesState() throws {
        let storage = try openStorage(root)
        let own = try DefaultsStore(suite: "standard", paths: storage.paths)
        try storage.put(
            Data("1".utf8), for: "written-by-facade", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(own.object(forKey: "written-by-facade") == .data(Data("1".utf8)))
        try own.set(.integer(5), forKey: "written-by-own")
        #expect(try storage.defaults.object(forKey: "written-by-own") == .integer(5))
        #expect(try storage.contains("written-by-own"))
    }

    @Test func credentialsFilesAndRecordsAreSharedToo() throws {
        let storage = try openStorage(root)
        try storage.secrets.set(
            Secret("s3cr3t"), service: SecretStore.storageBackendService, account: "api/token",
            accessibility: .afterFirstUnlock)
        #expect(try storage.data(for: "api/token") == Data("s3cr3t".utf8))
        try storage.put(Data("%PDF".utf8), for: "exports/a.pdf", as: descriptorForTier[.files]!)
        #expect(try storage.files.read("exports/a.pdf") == Data("%PDF".utf8))
        try storage.put(Data(#"{"id":"1"}"#.utf8), for: "orders/1", as: descriptorForTier[.records]!)
        #expect(try storage.records.data(for: "orders/1") == Data(#"{"id":"1"}"#.utf8))
    }

    @Test(arguments: Tier.allCases)
    func anotherActiveBackendIsATypedError(_ tier: Tier) throws {
        let storage = try openStorage(root)
        storage.registry.register(tier, name: "memory") { _ in InMemoryBackend(tier: tier) }
        let error = try #require(throws: StorageError.self) {
            switch tier {
            case .defaults: _ = try storage.defaults
            case .secrets: _ = try storage.secrets
            case .records: _ = try storage.records
            case .files: _ = try storage.files
            }
        }
        #expect(error.code == .notBuiltIn && error.tier == tier)
        #expect(error.message.contains("memory"))
        #expect(error.recovery?.contains("activate") == true)
    }

    @Test func aLockedKeyringIsTheKeyringsError() throws {
        unsetenv(Storage.secretsKeyVariable)
        let storage = try Storage(root: root)
        #expect(throws: StorageError.self) { _ = try storage.secrets }
    }

    @Test(.enabled(if: RecordEngineKind.available.contains(.postgres)))
    func recordsOnPostgresAreARecordStoreToo() throws {
        let location = try RecordStoreLocation(.postgres)
        let url =
            ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable]! + "?strata_schema="
            + location.location.dropFirst("postgres:".count)
        let storage = try Storage(root: root, recordsURL: url)
        #expect(try storage.records.name == "postgres")
        try storage.put(Data(#"{"id":"2"}"#.utf8), for: "orders/2", as: descriptorForTier[.records]!)
        #expect(try storage.records.data(for: "orders/2") == Data(#"{"id":"2"}"#.utf8))
        try storage.set(Sample.profile, for: "profiles/ada")
        #expect(try storage.value(Profile.self, for: "profiles/ada") == Sample.profile)
        try storage.set("dark", for: "theme")
        try storage.move("theme", to: .records)
        #expect(try storage.value(String.self, for: "theme") == "dark")
    }
}

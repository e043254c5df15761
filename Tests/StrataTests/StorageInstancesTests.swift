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
        #expect(storage.defaults === storage.defaults, "asked twice, the same instance")
        #expect(storage.records === storage.records && storage.files === storage.files)
    }

    /// The properties do not throw: a typed read is one expression, with no `try`.
    @Test func aTypedReadNeedsNoTry() throws {
        let storage = try openStorage(root)
        let theme = DefaultsKey("selectedTheme", default: "system")
        #expect(storage.defaults[theme] == "system")
        storage.defaults[theme] = "dark"
        #expect(storage.defaults[theme] == "dark")
        #expect(try storage.value(String.self, for: "selectedTheme") == "dark")
    }

    @Test func aPreferenceWrittenEitherWayIsSeenTheOtherWayAtOnce() throws {
        let storage = try openStorage(root)
        let theme = DefaultsKey("selectedTheme", default: "system")
        try storage.defaults.set("dark", for: theme)
        #expect(try storage.data(for: "selectedTheme") == Data("dark".utf8))
        try storage.put(Data("x".utf8), for: "flag", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(storage.defaults.object(forKey: "flag") == .data(Data("x".utf8)))
        #expect(try storage.delete("selectedTheme"))
        #expect(storage.defaults[theme] == "system")
    }

    /// The README's Quick start opens its own `DefaultsStore` next to the facade: it shares the facade's state.
    @Test func aSeparatelyOpenedSuiteSharesTheFacadesState() throws {
        let storage = try openStorage(root)
        let own = try DefaultsStore(suite: "standard", paths: storage.paths)
        try storage.put(
            Data("1".utf8), for: "written-by-facade", as: DataDescriptor(kind: .preference, estimatedSize: 1))
        #expect(own.object(forKey: "written-by-facade") == .data(Data("1".utf8)))
        try own.set(.integer(5), forKey: "written-by-own")
        #expect(storage.defaults.object(forKey: "written-by-own") == .integer(5))
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

    /// Records and files: the store handed out throws `.notBuiltIn` from its first use, as the property threw before.
    @Test(arguments: [Tier.records, .files])
    func anotherActiveBackendIsATypedErrorOnFirstUse(_ tier: Tier) throws {
        let storage = try openStorage(root)
        storage.registry.register(tier, name: "memory") { _ in InMemoryBackend(tier: tier) }
        let error = try #require(throws: StorageError.self) {
            switch tier {
            case .records: _ = try storage.records.data(for: "orders/1")
            default: _ = try storage.files.read("exports/a.pdf")
            }
        }
        #expect(error.code == .notBuiltIn && error.tier == tier)
        #expect(error.message.contains("memory"))
        #expect(error.recovery?.contains("activate") == true)
        // Made active again, the built-in is what the property gives.
        try storage.registry.activate(tier, name: tier == .records ? "sqlite" : "filesystem")
        if tier == .records {
            #expect(try storage.records === (storage.backend(for: .records) as? RecordStore))
        } else {
            #expect(try storage.files === (storage.backend(for: .files) as? FileStore))
        }
    }

    /// Defaults and secrets: the property is always the root's own suite and keyring; the facade goes to the active
    /// backend.
    @Test(arguments: [Tier.defaults, .secrets])
    func anotherActiveBackendLeavesTheRootsOwnStore(_ tier: Tier) throws {
        let storage = try openStorage(root)
        let (defaults, secrets) = (storage.defaults, storage.secrets)
        storage.registry.register(tier, name: "memory") { _ in InMemoryBackend(tier: tier) }
        #expect(try storage.backend(for: tier) is InMemoryBackend)
        #expect(defaults === storage.defaults && secrets === storage.secrets)
        try storage.put(Data("v".utf8), for: "k", as: descriptorForTier[tier]!)
        #expect(try storage.backend(for: tier).data(for: "k") == Data("v".utf8))
    }

    /// A keyring without a key is handed out locked; its first use throws the error unlocking threw (with the
    /// remedy the CLI turns into advice), and unlocking it by hand makes it, and the facade, work.
    @Test func aLockedKeyringIsHandedOutLockedAndItsFirstUseSaysWhy() throws {
        unsetenv(Storage.secretsKeyVariable)
        let passphrase = Secret("correct horse battery staple")
        try Storage(root: root, secretsKey: .passphrase(passphrase)).set(Secret("t0ken"), for: "api/token")
        let storage = try Storage(root: root)
        let secrets = storage.secrets
        #expect(secrets.isLocked)
        let error = try #require(throws: StorageError.self) {
            try secrets.get(service: SecretStore.storageBackendService, account: "api/token")
        }
        #expect(error.code == .locked && error.tier == .secrets && error.remedy == .giveSecretsKey)
        #expect(error.message.contains("passphrase"))
        let facade = try #require(throws: StorageError.self) { try storage.data(for: "api/token") }
        #expect(facade.code == .locked)
        try storage.secrets.unlock(with: .passphrase(passphrase))
        let token = try storage.secrets.get(service: SecretStore.storageBackendService, account: "api/token")
        #expect(token?.stringValue == "t0ken")
        #expect(try storage.data(for: "api/token") == Data("t0ken".utf8))
        storage.secrets.lock()
        #expect(storage.secrets.isLocked, "asking for the property again does not undo the app's lock()")
    }

    /// A store with no keyring yet and no key: every first use of the keyring, a read as well as a write, says the
    /// key is missing (`.locked`, with the remedy), not that there is no keyring; given a key, it is created.
    @Test func aKeyringNotYetCreatedWithoutAKeyIsLockedOnEveryFirstUse() throws {
        unsetenv(Storage.secretsKeyVariable)
        let storage = try Storage(root: root)
        let secrets = storage.secrets
        let uses: [(String, () throws -> Void)] = [
            ("get", { _ = try secrets.get(service: "svc", account: "a") }),
            ("contains", { _ = try secrets.contains(service: "svc", account: "a") }),
            ("attributes", { _ = try secrets.attributes(service: "svc", account: "a") }),
            ("delete", { _ = try secrets.delete(service: "svc", account: "a") }),
            ("update", { _ = try secrets.update(service: "svc", account: "a") { _ in Secret("v") } }),
            ("set", { try secrets.set(Secret("v"), service: "svc", account: "a") }),
            ("facade", { _ = try storage.set(Secret("v"), for: "api/token") }),
        ]
        for (name, use) in uses {
            let error = try #require(throws: StorageError.self, "\(name)") { try use() }
            #expect(error.code == .locked && error.remedy == .giveSecretsKey, "\(name): \(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/secrets"), "nothing was created")
        try secrets.unlock(with: .inMemory(Secret(Data(repeating: 0x44, count: 32))))
        try secrets.set(Secret("v"), service: "svc", account: "a")
        #expect(try secrets.get(service: "svc", account: "a")?.stringValue == "v")
    }

    @Test func aWrongKeyIsTheFirstUsesError() throws {
        let right = KeyProvider.inMemory(Secret(Data(repeating: 0x22, count: 32)))
        try Storage(root: root, secretsKey: right).set(Secret("x"), for: "api/token")
        let wrong = KeyProvider.inMemory(Secret(Data(repeating: 0x11, count: 32)))
        let storage = try Storage(root: root, secretsKey: wrong)
        let error = try #require(throws: StorageError.self) {
            try storage.secrets.set(Secret("y"), service: "svc", account: "a")
        }
        #expect(error.code == .authenticationFailed && error.tier == .secrets)
    }

    /// A records engine that cannot be reached: the property returns, the store's first use throws what opening
    /// threw, and the other tiers' own APIs work.
    @Test func anUnreachableRecordsServerIsTheFirstUsesError() throws {
        let storage = try Storage(root: root, recordsURL: "postgresql://strata@127.0.0.1:1/strata?connect_timeout=2")
        let opening = try #require(throws: StorageError.self) { try storage.backend(for: .records) }
        let records = storage.records
        #expect(records.name == "postgres")
        let error = try #require(throws: StorageError.self) { try records.data(for: "orders/1") }
        #expect(error.code == opening.code && error.tier == .records)
        #expect(throws: StorageError.self) { _ = try records.collection(RestoredNote.self, named: "notes") }
        storage.defaults[DefaultsKey("theme", default: "system")] = "dark"
        #expect(storage.defaults.object(forKey: "theme") == .string("dark"))
    }

    @Test(.enabled(if: RecordEngineKind.available.contains(.postgres)))
    func recordsOnPostgresAreARecordStoreToo() throws {
        let location = try RecordStoreLocation(.postgres)
        let url =
            ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable]! + "?strata_schema="
            + location.location.dropFirst("postgres:".count)
        let storage = try Storage(root: root, recordsURL: url)
        #expect(storage.records.name == "postgres")
        try storage.put(Data(#"{"id":"2"}"#.utf8), for: "orders/2", as: descriptorForTier[.records]!)
        #expect(try storage.records.data(for: "orders/2") == Data(#"{"id":"2"}"#.utf8))
        try storage.set(Sample.profile, for: "profiles/ada")
        #expect(try storage.value(Profile.self, for: "profiles/ada") == Sample.profile)
        try storage.set("dark", for: "theme")
        try storage.move("theme", to: .records)
        #expect(try storage.value(String.self, for: "theme") == "dark")
    }
}

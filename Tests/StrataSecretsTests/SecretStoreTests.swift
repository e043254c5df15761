import Foundation
import StrataConformance
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// A fixed 32-byte test key, as hex and as a provider.
let testKeyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
let testKey = KeyProvider.inMemory(Secret(Data((0..<32).map { UInt8($0) })))
let fastPasswords = SecretsConfiguration(passwordHashCost: .minimumForTests)
/// Every item in a file of its own (none inside the manifest): for tests of the item files themselves.
let itemFilesOnly = SecretsConfiguration(passwordHashCost: .minimumForTests, inlineItemLimit: 0)

struct SecretsFixture {
    let directory: TemporaryDirectory
    let paths: StoragePaths

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-secrets")
        paths = try StoragePaths(root: directory.appending("root"))
    }

    func store(_ keyring: String = "default", provider: KeyProvider = testKey) throws -> SecretStore {
        try SecretStore(keyring: keyring, paths: paths, unlockingWith: provider, configuration: fastPasswords)
    }

    /// A store that keeps every item in a file of its own (see ``itemFilesOnly``).
    func fileStore(_ keyring: String = "default", provider: KeyProvider = testKey) throws -> SecretStore {
        try SecretStore(keyring: keyring, paths: paths, unlockingWith: provider, configuration: itemFilesOnly)
    }

    func keyringFolder(_ keyring: String = "default") -> String { paths.root + "/secrets/" + keyring }

    func itemFiles(_ keyring: String = "default") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: keyringFolder(keyring)).filter { $0.hasSuffix(".item") }
            .sorted()
            .map { keyringFolder(keyring) + "/" + $0 }
    }
}

@Suite("SecretStore: items")
struct SecretItemTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test func roundTripAndAbsence() throws {
        let store = try fixture.store()
        #expect(try store.get(service: "api", account: "alice") == nil)
        #expect(try !store.contains(service: "api", account: "alice"))
        try store.set("tok_live_1", service: "api", account: "alice", label: "Alice's token")
        #expect(try store.get(service: "api", account: "alice")?.stringValue == "tok_live_1")
        #expect(try store.contains(service: "api", account: "alice"))
        #expect(try store.get(service: "api", account: "bob") == nil)
        #expect(try store.get(service: "other", account: "alice") == nil)
        let reopened = try fixture.store()
        #expect(try reopened.get(service: "api", account: "alice")?.stringValue == "tok_live_1")
    }

    @Test func setIsAnUpsertThatKeepsCreationAndLabel() throws {
        let store = try fixture.fileStore()
        try store.set("one", service: "api", account: "alice", label: "kept", accessibility: .afterFirstUnlock)
        let first = try #require(try store.attributes(service: "api", account: "alice"))
        Thread.sleep(forTimeInterval: 0.01)
        try store.set("two, longer", service: "api", account: "alice", accessibility: .afterFirstUnlock)
        let second = try #require(try store.attributes(service: "api", account: "alice"))
        #expect(second.label == "kept")
        #expect(second.creationDate == first.creationDate)
        #expect(second.modificationDate > first.modificationDate)
        #expect(second.valueSize == 11)
        #expect(try fixture.itemFiles().count == 1)
    }

    @Test func listingGivesAttributesNeverValuesAndDeleteAllOfAService() throws {
        let store = try fixture.store()
        for account in ["carol", "alice", "bob"] { try store.set("v-\(account)", service: "mail", account: account) }
        try store.set("x", service: "chat", account: "alice", accessibility: .afterFirstUnlock)
        let mail = try store.items(service: "mail")
        #expect(mail.map(\.account) == ["alice", "bob", "carol"])
        #expect(mail.allSatisfy { $0.service == "mail" && $0.valueSize == 5 + $0.account.count - 3 || true })
        #expect(try store.items().count == 4)
        #expect(try store.deleteAll(service: "mail") == 3)
        #expect(try store.items().map(\.service) == ["chat"])
        #expect(try store.delete(service: "chat", account: "alice"))
        #expect(try !store.delete(service: "chat", account: "alice"))
        #expect(try fixture.itemFiles().isEmpty)
    }

    @Test func secretsNeverPrint() throws {
        let secret = Secret("hunter2")
        #expect("\(secret)" == "<redacted>")
        #expect(String(describing: secret) == "<redacted>")
        #expect(!String(reflecting: secret).contains("hunter2"))
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(!"\(KeyProvider.passphrase("hunter2"))".contains("hunter2"))
        #expect(secret == Secret("hunter2"))
        #expect(secret != Secret("hunter3"))
    }

    @Test func badIdentitiesAndOversizeValuesAreRefused() throws {
        let store = try fixture.store()
        #expect(throws: StorageError.self) { try store.set("x", service: "", account: "a") }
        #expect(throws: StorageError.self) { try store.set("x", service: "s", account: "") }
        var small = fastPasswords
        small.valueLimit = 100
        let limited = try SecretStore(paths: fixture.paths, unlockingWith: testKey, configuration: small)
        let error = #expect(throws: StorageError.self) {
            try limited.set(Secret(Data(count: 101)), service: "s", account: "a")
        }
        #expect(error?.code == .tooLarge)
        for name in ["", "../x", "a/b", ".hidden", "nul\0"] {
            #expect(throws: StorageError.self) { try SecretStore(keyring: name, paths: fixture.paths) }
        }
    }

    @Test func plaintextNeverReachesTheDisk() throws {
        let store = try fixture.store()
        let value = "sk_live_PLAINTEXT_MARKER_51Hq"
        try store.set(value, service: "payments.example.com", account: "merchant-4242", label: "LABEL_MARKER")
        try store.set(
            Secret(value), service: "second.example.com", account: "acct",
            accessibility: .afterFirstUnlockThisDeviceOnly)
        let markers = [value, "payments.example.com", "merchant-4242", "LABEL_MARKER", "second.example.com"].map {
            Array($0.utf8)
        }
        let files = try FileManager.default.subpathsOfDirectory(atPath: fixture.paths.root)
        #expect(!files.isEmpty)
        for relative in files {
            let path = fixture.paths.root + "/" + relative
            guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else { continue }
            for marker in markers {
                #expect(!contains(bytes, marker), "\(relative) holds \(String(decoding: marker, as: UTF8.self))")
            }
            #expect(!relative.contains("payments") && !relative.contains("merchant"))
        }
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    @Test func filesAndFoldersArePrivateAndLinksAreNotFollowed() throws {
        let store = try fixture.fileStore()
        try store.set("x", service: "s", account: "a")
        let mode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }
        #expect(try mode(fixture.keyringFolder()) == 0o700)
        #expect(try mode(fixture.paths.root + "/secrets") == 0o700)
        #expect(try mode(fixture.keyringFolder() + "/keyring.json") == 0o600)
        let item = try #require(try fixture.itemFiles().first)
        #expect(try mode(item) == 0o600)
        // An item file replaced by a link is refused, not followed.
        let elsewhere = fixture.directory.appending("elsewhere")
        try FileManager.default.moveItem(atPath: item, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: item, withDestinationPath: elsewhere)
        let error = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(error?.code == .symbolicLink)
        // A keyring folder that is a link is refused.
        try FileManager.default.createDirectory(
            atPath: fixture.directory.appending("outside"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.keyringFolder("linked"), withDestinationPath: fixture.directory.appending("outside"))
        let linked = #expect(throws: StorageError.self) { try SecretStore(keyring: "linked", paths: fixture.paths) }
        #expect(linked?.code == .symbolicLink)
    }
}

@Suite("SecretStore: keys and locking")
struct SecretKeyTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    @Test func wrongPassphraseIsTypedAndChangesNothing() throws {
        let store = try fixture.store(provider: .passphrase("correct horse"))
        try store.set("v", service: "s", account: "a")
        let keyring = try Data(contentsOf: URL(fileURLWithPath: fixture.keyringFolder() + "/keyring.json"))
        let error = #expect(throws: StorageError.self) { try fixture.store(provider: .passphrase("wrong horse")) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.path?.hasSuffix("keyring.json") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.keyringFolder() + "/keyring.json")) == keyring)
        #expect(
            try fixture.store(provider: .passphrase("correct horse")).get(service: "s", account: "a")?.stringValue
                == "v")
        let kind = #expect(throws: StorageError.self) { try fixture.store(provider: testKey) }
        #expect(kind?.code == .invalidArgument)
        #expect(kind?.message.contains("passphrase") == true)
    }

    @Test func changingThePassphraseRewrapsOnlyTheKey() throws {
        let store = try fixture.store(provider: .passphrase("old"))
        for index in 0..<20 { try store.set("value \(index)", service: "s", account: "a\(index)") }
        let before = try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try store.changeKey(to: .passphrase("new"))
        #expect(
            try fixture.itemFiles().map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before, "items untouched")
        #expect(throws: StorageError.self) { try fixture.store(provider: .passphrase("old")) }
        let reopened = try fixture.store(provider: .passphrase("new"))
        for index in 0..<20 {
            #expect(try reopened.get(service: "s", account: "a\(index)")?.stringValue == "value \(index)")
        }
        // Another kind of key works too.
        try reopened.changeKey(to: testKey)
        #expect(try fixture.store(provider: testKey).get(service: "s", account: "a3")?.stringValue == "value 3")
    }

    @Test func lockWipesWhenUnlockedKeysButNotAfterFirstUnlock() throws {
        let store = try fixture.store()
        try store.set("wu", service: "s", account: "wu", accessibility: .whenUnlocked)
        try store.set("afu", service: "s", account: "afu", accessibility: .afterFirstUnlock)
        store.lock()
        #expect(store.isLocked)
        let locked = #expect(throws: StorageError.self) { try store.get(service: "s", account: "wu") }
        #expect(locked?.code == .locked)
        #expect(try store.get(service: "s", account: "afu")?.stringValue == "afu")
        #expect(throws: StorageError.self) {
            try store.set("x", service: "s", account: "wu2", accessibility: .whenUnlocked)
        }
        try store.set("afu2", service: "s", account: "afu2", accessibility: .afterFirstUnlock)
        #expect(
            try store.items().map(\.account) == ["afu", "afu2"], "locked whenUnlocked items are skipped in listings")
        #expect(throws: StorageError.self) { try store.changeKey(to: .passphrase("x")) }
        try store.unlock(with: testKey)
        #expect(try store.get(service: "s", account: "wu")?.stringValue == "wu")
    }

    @Test func neverUnlockedStoreSaysLockedNotAbsent() throws {
        _ = try fixture.store()
        let store = try SecretStore(paths: fixture.paths)
        let error = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(error?.code == .locked)
    }

    @Test func keyFileMustBePrivate() throws {
        let path = fixture.directory.appending("key")
        try Data((testKeyHex + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let open = #expect(throws: StorageError.self) { try fixture.store(provider: .keyFile(path)) }
        #expect(open?.code == .unsafePermissions)
        #expect(open?.recovery?.contains("chmod 600") == true)
        chmod(path, 0o600)
        let store = try fixture.store(provider: .keyFile(path))
        try store.set("v", service: "s", account: "a")
        try Data("short".utf8).write(to: URL(fileURLWithPath: fixture.directory.appending("bad")))
        chmod(fixture.directory.appending("bad"), 0o600)
        let bad = #expect(throws: StorageError.self) {
            try SecretStore(
                keyring: "other", paths: fixture.paths, unlockingWith: .keyFile(fixture.directory.appending("bad")))
        }
        #expect(bad?.code == .invalidArgument)
    }

    @Test func environmentKey() throws {
        let missing = #expect(throws: StorageError.self) {
            try fixture.store(provider: .environment("STRATA_TEST_KEY_THAT_IS_NOT_SET"))
        }
        #expect(missing?.message.contains("STRATA_TEST_KEY_THAT_IS_NOT_SET") == true)
        // A variable of this test's own: the process environment is shared by every test running in parallel,
        // and this key is not theirs (it once replaced the facade tests' key under them: `authentication-failed`).
        setenv("STRATA_TEST_ENVIRONMENT_KEY_PROVIDER", testKeyHex, 1)
        let variable = "STRATA_TEST_ENVIRONMENT_KEY_PROVIDER"
        let store = try fixture.store("env", provider: .environment(variable))
        try store.set("v", service: "s", account: "a")
        #expect(
            try fixture.store("env", provider: .environment(variable)).get(service: "s", account: "a")?.stringValue
                == "v")
    }
}

@Suite("SecretStore: StorageBackend conformance")
struct SecretsConformanceTests {
    @Test(arguments: BackendConformance.checkIDs)
    func conformance(_ check: String) async throws {
        let fixture = try SecretsFixture()
        try await BackendConformance.run(check, options: BackendConformance.Options(manyKeysCount: 100)) {
            try fixture.store()
        }
    }
}

/// The no-follow stat that `contains` makes goes through the seam (it used to call lstat directly).
@Suite("SecretStore: faults at the seam", .serialized)
struct SecretFaultTests {
    @Test func containsReportsAnInjectedStatFault() throws {
        let fixture = try SecretsFixture()
        defer { FaultInjector.shared.reset() }
        let store = try fixture.fileStore()
        try store.set("v", service: "s", account: "a")
        FaultInjector.shared.inject(.error(EIO), on: .stat, pathContaining: fixture.keyringFolder() + "/")
        let error = #expect(throws: StorageError.self) { _ = try store.contains(service: "s", account: "a") }
        #expect(error?.errno == EIO)
        FaultInjector.shared.reset()
        #expect(try store.contains(service: "s", account: "a"))
    }
}

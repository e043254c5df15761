import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 17: a lost keyring file, hostile Argon2id costs, items of another machine, identity collisions, attribute
/// limits and the one sealing path.
@Suite("SecretStore: keyring safety")
struct SecretKeyringSafetyTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    /// Over item files, and over items the manifest holds (no item file at all).
    @Test(arguments: [false, true])
    func aKeyringIsNeverCreatedOverItems(_ inline: Bool) throws {
        let store =
            try inline
            ? fixture.store(provider: .passphrase("right")) : fixture.fileStore(provider: .passphrase("right"))
        try store.set("kept", service: "s", account: "a")
        let name = try store.fileName(ItemIdentity(service: "s", account: "a"))
        let items = try fixture.itemFiles()
        #expect(items.isEmpty == inline)
        let manifest = fixture.keyringFolder() + "/" + ItemManifest.fileName
        let manifestBytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
        try FileManager.default.removeItem(atPath: fixture.keyringFolder() + "/keyring.json")
        #expect(store.itemCount == 1, "counted without the key")
        let reopened = try SecretStore(paths: fixture.paths, configuration: fastPasswords)
        let refused = #expect(throws: StorageError.self) { try reopened.unlock(with: .passphrase("totally-wrong")) }
        #expect(refused?.code == .corrupt)
        #expect(refused?.path == fixture.keyringFolder() + "/keyring.json")
        #expect(refused?.message.contains(name) == true)
        #expect(refused?.recovery?.contains("backup") == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyringFolder() + "/keyring.json"))
        #expect(try fixture.itemFiles() == items, "nothing stored is touched")
        #expect(try Data(contentsOf: URL(fileURLWithPath: manifest)) == manifestBytes)
    }

    @Test func aMissingKeyringIsNotCreatedWhenNotAsked() throws {
        _ = try fixture.store()
        let mistyped = try SecretStore(keyring: "defualt", paths: fixture.paths, configuration: fastPasswords)
        let refused = #expect(throws: StorageError.self) { try mistyped.unlock(with: testKey, createIfMissing: false) }
        #expect(refused?.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyringFolder("defualt")), "not even its folder")
        #expect(!mistyped.keyringExists)
    }

    @Test func importRefusesCostsOverTheLimitBeforeDeriving() throws {
        // An archive whose maker chose 5 passes: over the default limit of 4, though cheap in memory.
        let maker = try SecretStore(
            keyring: "maker", paths: fixture.paths, unlockingWith: testKey,
            configuration: SecretsConfiguration(passwordHashCost: .init(operations: 5, memory: 8 << 10)))
        try maker.set("v", service: "s", account: "a")
        let (archive, _, _) = try maker.exportItems(protectedBy: Secret("pw"))
        let target = try SecretStore(keyring: "target", paths: fixture.paths, unlockingWith: testKey)
        let refused = #expect(throws: StorageError.self) { try target.importItems(archive, passphrase: Secret("pw")) }
        #expect(refused?.code == .limitExceeded)
        #expect(try target.items().isEmpty)
        var generous = SecretsConfiguration()
        generous.passwordHashLimit = .init(operations: 8, memory: 8 << 10)
        let trusting = try SecretStore(
            keyring: "target", paths: fixture.paths, unlockingWith: testKey, configuration: generous)
        #expect(try trusting.importItems(archive, passphrase: Secret("pw")) == 1)
    }

    @Test func aKeyringFileOverTheCostLimitIsRefusedBeforeDeriving() throws {
        let costly = SecretsConfiguration(passwordHashCost: .init(operations: 6, memory: 8 << 10))
        _ = try fixture.store(provider: .passphrase("pw"))  // The fixture's cost: within every limit.
        _ = try SecretStore(
            keyring: "costly", paths: fixture.paths, unlockingWith: .passphrase("pw"), configuration: costly)
        let reopened = try SecretStore(keyring: "costly", paths: fixture.paths)
        let refused = #expect(throws: StorageError.self) { try reopened.unlock(with: .passphrase("pw")) }
        #expect(refused?.code == .limitExceeded)
    }

    @Test func everyHeaderByteOfAnArchiveIsAuthenticated() throws {
        let store = try fixture.store()
        try store.set("v", service: "s", account: "a")
        let (archive, _, _) = try store.exportItems(protectedBy: Secret("pw"))
        let target = try fixture.store("target")
        let headerSize = 8 + 1 + Sodium.saltBytes + 16 + Sodium.nonceBytes
        for offset in 0..<headerSize {
            var damaged = archive
            damaged[offset] ^= 1
            #expect(throws: StorageError.self, "header byte \(offset)") {
                try target.importItems(damaged, passphrase: Secret("pw"))
            }
        }
        #expect(try target.items().isEmpty)
    }

    @Test func updateOverTheValueLimitNamesTheItemAndTheWayOut() throws {
        let store = try SecretStore(
            paths: fixture.paths, unlockingWith: testKey, configuration: SecretsConfiguration(valueLimit: 16))
        try store.set("small", service: "s", account: "a")
        let fromSet = #expect(throws: StorageError.self) {
            try store.set(Secret(Data(count: 17)), service: "s", account: "a")
        }
        let fromUpdate = #expect(throws: StorageError.self) {
            try store.update(service: "s", account: "a") { _ in Secret(Data(count: 17)) }
        }
        #expect(fromUpdate?.code == .tooLarge)
        #expect(fromUpdate?.key == "s/a")
        #expect(fromUpdate?.recovery != nil)
        #expect(fromUpdate?.suggestedTier == .files)
        #expect(fromUpdate == fromSet, "one path, one error")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "small")
    }

    @Test(arguments: ["label", "service", "account"])
    func everyAttributeIsLimitedOnTheWayIn(_ attribute: String) throws {
        let store = try SecretStore(
            paths: fixture.paths, unlockingWith: testKey, configuration: SecretsConfiguration(valueLimit: 1024))
        try store.set("other", service: "s", account: "other")
        let long = String(repeating: "x", count: 70_000)
        let refused = #expect(throws: StorageError.self) {
            try store.set(
                Secret(Data(count: 1024)), service: attribute == "service" ? long : "s",
                account: attribute == "account" ? long : "a", label: attribute == "label" ? long : nil)
        }
        #expect(refused?.code == .tooLarge)
        #expect(refused?.attribute == attribute)
        #expect(refused.map { "\($0)" }?.contains("attribute \(attribute)") == true)
        #expect(try store.items().map(\.account) == ["other"], "nothing was written, and the keyring still lists")
        let atLimit = String(repeating: "y", count: SecretItem.attributeLimit)
        try store.set(Secret(Data(count: 1024)), service: atLimit, account: atLimit, label: atLimit)
        #expect(try store.get(service: atLimit, account: atLimit)?.count == 1024)
    }

    @Test(arguments: [false, true])
    func identitiesWithNulNeverShareAFile(_ reversed: Bool) throws {
        let store = try fixture.fileStore()
        var pairs = [("bank", "alice\0token", "first"), ("bank\0alice", "token", "second")]
        if reversed { pairs.reverse() }
        for (service, account, value) in pairs { try store.set(value, service: service, account: account) }
        for (service, account, value) in pairs {
            #expect(try store.get(service: service, account: account)?.stringValue == value)
        }
        #expect(try fixture.itemFiles().count == 2)
        #expect(try store.items().count == 2)
        #expect(try store.delete(service: pairs[0].0, account: pairs[0].1))
        #expect(try store.get(service: pairs[1].0, account: pairs[1].1)?.stringValue == pairs[1].2)
    }

    @Test func identitiesWithoutNulKeepTheirFileNames() throws {
        let store = try fixture.fileStore()
        let identity = ItemIdentity(service: "api", account: "alice")
        #expect(identity.nameMessage == Array("api\0alice".utf8), "the first format's bytes")
        #expect(identity.legacyNameMessage == nil)
        #expect(
            ItemIdentity(service: "a\0b", account: "c").nameMessage
                != ItemIdentity(service: "a", account: "b\0c").nameMessage)
        try store.set("v", service: "api", account: "alice")
        #expect(try fixture.itemFiles().map { ($0 as NSString).lastPathComponent } == [try store.fileName(identity)])
    }

    /// Moved to its new name, or into the manifest (`inline`): the first format's file is removed either way.
    @Test(arguments: [false, true])
    func anItemUnderItsFirstFormatNameIsFoundAndMovedOnWrite(_ inline: Bool) throws {
        let store = try inline ? fixture.store() : fixture.fileStore()
        // What the first format wrote for ("bank", "alice\0token"): the same file as ("bank\0alice", "token").
        let identity = ItemIdentity(service: "bank", account: "alice\0token")
        let legacy = try #require(try store.legacyFileName(identity))
        let folder = try store.keyringFolder()
        let (keyringID, key) = try store.classKey(.whenUnlocked, writing: true)
        let record = ItemEnvelope.Record(
            service: "bank", account: "alice\0token", label: "old", created: Date(timeIntervalSince1970: 1),
            modified: Date(timeIntervalSince1970: 1), valueSize: 3)
        let file = try store.sealedFile(
            Secret("old"), as: record, accessibility: .whenUnlocked, keyringID: keyringID, key: key, fileName: legacy)
        try AtomicFile.write(file, in: folder, name: legacy)
        #expect(try store.get(service: "bank", account: "alice\0token")?.stringValue == "old")
        #expect(try store.get(service: "bank\0alice", account: "token") == nil, "the other identity of the collision")
        #expect(try store.contains(service: "bank", account: "alice\0token"))
        #expect(try store.items().map(\.label) == ["old"])
        try store.set("new", service: "bank", account: "alice\0token")
        #expect(
            try fixture.itemFiles().map { ($0 as NSString).lastPathComponent }
                == (inline ? [] : [try store.fileName(identity)]))
        for reader in [store, try fixture.store()] {
            #expect(try reader.attributes(service: "bank", account: "alice\0token")?.label == "old", "label kept")
            #expect(try reader.get(service: "bank", account: "alice\0token")?.stringValue == "new")
            #expect(try reader.items().count == 1)
        }
        #expect(store.itemCount == 1)
    }

    @Test func otherMachinesDeviceOnlyItemsAreSkippedReportedAndDeleted() throws {
        let store = try fixture.store()
        try store.set("bound", service: "s", account: "device", accessibility: .whenUnlockedThisDeviceOnly)
        try store.set("bound2", service: "t", account: "device", accessibility: .afterFirstUnlockThisDeviceOnly)
        try store.set("portable", service: "s", account: "portable", accessibility: .afterFirstUnlock)
        try store.set("other", service: "t", account: "other")
        let child = try TestExecutables.url(named: "strata-test-child")
        let elsewhere = try ChildProcess.run(
            child, ["secrets-migrate", fixture.paths.root, testKeyHex, "s"],
            environment: ["STRATA_DEVICE_ID": "another-machine"])
        #expect(
            elsewhere.standardOutput
                == "listed portable,other skipped s/device,t/device\nexported 2 skipped 2\ndeleted 2 left 2\n",
            "\(elsewhere.standardError)")
        #expect(try store.items().map { "\($0.service)/\($0.account)" } == ["t/device", "t/other"])
    }

    @Test func firstFormatDeviceOnlyItemsStillOpenHereAndAreKeptElsewhere() throws {
        let store = try fixture.store()
        let identity = ItemIdentity(service: "s", account: "old")
        let fileName = try store.fileName(identity)
        let (keyringID, key) = try store.classKey(.whenUnlockedThisDeviceOnly, writing: true)
        let record = ItemEnvelope.Record(
            service: "s", account: "old", label: "", created: Date(), modified: Date(), valueSize: 3)
        let file = try Array("old".utf8).withUnsafeBytes {
            try ItemEnvelope.seal(
                record, value: $0, accessibility: .whenUnlockedThisDeviceOnly, keyringID: keyringID,
                fileName: fileName, key: key, format: 1)
        }
        try AtomicFile.write(file, in: try store.keyringFolder(), name: fileName)
        #expect(try store.get(service: "s", account: "old")?.stringValue == "old", "format 1 reads on its machine")
        let elsewhere = try ChildProcess.run(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-migrate", fixture.paths.root, testKeyHex, "s"],
            environment: ["STRATA_DEVICE_ID": "another-machine"])
        #expect(
            elsewhere.standardOutput == "listed  skipped ?\nexported 0 skipped 1\ndeleted 0 left 1\n",
            "its service cannot be known there: reported, and kept \(elsewhere.standardError)")
        #expect(try store.get(service: "s", account: "old")?.stringValue == "old")
    }
}

import Foundation
import Strata
import StrataCatalog
import StrataTestSupport
import Testing

/// The catalog tells the truth whoever writes: a tier's own API (through `Storage`'s instance or one the app opens
/// on the same root), and whatever outside Strata removes a value.
@Suite("Storage: the catalog stays true whoever writes")
struct CatalogTruthTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-catalog-truth") }

    /// Deletes `key` through `tier`'s own typed API on `storage`'s instance.
    static func deleteThroughTier(_ tier: Tier, _ key: String, in storage: Storage) throws {
        switch tier {
        case .defaults: try storage.defaults.set(nil, for: DefaultsKey<String?>(key, default: nil))
        case .secrets: #expect(try storage.secrets.delete(service: SecretStore.storageBackendService, account: key))
        case .records: #expect(try storage.records.delete(key))
        case .files: #expect(try storage.files.delete(key))
        }
    }

    /// The store's view of a key no tier holds: every answer says so, and nothing needs repairing.
    static func expectGone(_ key: String, in storage: Storage, _ context: String) throws {
        #expect(try !storage.contains(key), "\(context)")
        #expect(try storage.location(of: key) == nil, "\(context)")
        #expect(try storage.data(for: key) == nil, "\(context)")
        #expect(try !storage.keys().contains(key), "\(context)")
    }

    /// A key deleted through its tier's own API loses its placement at once: `contains`, `location(of:)`,
    /// `data(for:)` and `keys(prefix:)` agree, and the check has nothing to repair.
    @Test(arguments: Tier.allCases)
    func aDeleteThroughTheTierRemovesThePlacement(_ tier: Tier) throws {
        let storage = try openStorage(root)
        try storage.put(Data("value".utf8), for: "k", as: descriptorForTier[tier]!)
        try storage.put(Data("other".utf8), for: "neighbour", as: descriptorForTier[tier]!)
        try Self.deleteThroughTier(tier, "k", in: storage)
        #expect(try storage.catalog.location(of: "k") == nil)
        try Self.expectGone("k", in: storage, "\(tier)")
        #expect(try storage.data(for: "neighbour") == Data("other".utf8))
        let report = try storage.verifyCatalog()
        #expect(report.isSound && report.repaired.isEmpty, "\(report.lines)")
        // Another process sees the same.
        try Self.expectGone("k", in: try openStorage(root), "\(tier), reopened")
    }

    /// A tier store the app opens on its own on the same root, while a `Storage` of the process has it open, keeps
    /// the catalog true the same way.
    @Test(arguments: Tier.allCases)
    func aTierStoreOpenedByTheAppReportsToTheCatalog(_ tier: Tier) throws {
        let storage = try openStorage(root)
        try storage.put(Data("value".utf8), for: "k", as: descriptorForTier[tier]!)
        let paths = try StoragePaths(root: root)
        switch tier {
        case .defaults: #expect(try DefaultsStore(suite: "standard", paths: paths).removeObject(forKey: "k"))
        case .secrets:
            let secrets = try SecretStore(keyring: "default", paths: paths, unlockingWith: testSecretsKey)
            #expect(try secrets.delete(service: SecretStore.storageBackendService, account: "k"))
        case .records: #expect(try RecordStore(name: "main", paths: paths).delete("k"))
        case .files: #expect(try FileStore(paths: paths).delete("k"))
        }
        try Self.expectGone("k", in: storage, "\(tier)")
    }

    /// A write through a tier of a key the catalog places in another tier is refused, naming the tier that holds
    /// it; nothing is written and nothing changes, through `Storage`'s instances and through stores the app opens.
    @Test(arguments: Tier.allCases.flatMap { holder in Tier.allCases.filter { $0 != holder }.map { (holder, $0) } })
    func aTierWriteOfAKeyPlacedElsewhereIsRefused(_ holder: Tier, _ writer: Tier) throws {
        let storage = try openStorage(root)
        try storage.put(Data("placed".utf8), for: "k", as: descriptorForTier[holder]!.allowingPlaintext)
        let paths = try StoragePaths(root: root)
        let writes: [() throws -> Void] =
            switch writer {
            case .defaults:
                [
                    { try storage.defaults.set("x", for: DefaultsKey<String>("k", default: "")) },
                    { try DefaultsStore(suite: "standard", paths: paths).set(.string("x"), forKey: "k") },
                ]
            case .secrets:
                [
                    { try storage.secrets.set("x", service: SecretStore.storageBackendService, account: "k") },
                    { try storage.backend(for: .secrets).put(Data("x".utf8), for: "k") },
                ]
            case .records:
                [
                    { try storage.records.put(Data("x".utf8), for: "k") },
                    { try RecordStore(name: "main", paths: paths).put(Data("x".utf8), for: "k") },
                ]
            case .files:
                [
                    { try storage.files.write(Data("x".utf8), to: "k") },
                    { try FileStore(paths: paths).append(Data("x".utf8), to: "k") },
                    { try storage.files.copy("k2", to: "k") },
                ]
            }
        if writer == .files { try storage.files.write(Data("source".utf8), to: "k2") }
        for (index, write) in writes.enumerated() {
            let error = #expect(throws: StorageError.self, "write \(index)") { try write() }
            #expect(error?.code == .conflict, "write \(index): \(String(describing: error))")
            #expect(error?.tier == writer && error?.key == "k" && error?.suggestedTier == holder)
            #expect("\(String(describing: error))".contains("keeps this key in \(holder.rawValue)"))
        }
        #expect(try tiersHolding("k", in: storage) == [holder])
        #expect(try storage.data(for: "k") == Data("placed".utf8))
        #expect(try storage.location(of: "k")?.tier == holder)
        #expect(try storage.verifyCatalog().isSound)
    }

    /// A tier write of a key placed in the same tier, or of a key the catalog does not know, goes through.
    @Test func aTierWriteOfItsOwnKeysGoesThrough() throws {
        let storage = try openStorage(root)
        try storage.put(Data("first".utf8), for: "exports/a.pdf", as: descriptorForTier[.files]!)
        try storage.files.write(Data("second".utf8), to: "exports/a.pdf")
        try storage.files.write(Data("new".utf8), to: "exports/b.pdf")
        #expect(try storage.data(for: "exports/a.pdf") == Data("second".utf8))
        #expect(try storage.location(of: "exports/b.pdf")?.ruleID == "found")
        try storage.files.move("exports/a.pdf", to: "exports/c.pdf")
        #expect(try storage.catalog.location(of: "exports/a.pdf") == nil)
        #expect(try storage.keys(prefix: "exports/") == ["exports/b.pdf", "exports/c.pdf"])
        #expect(try storage.verifyCatalog().isSound)
    }

    /// Removes `key` from `tier` the way something outside Strata would: the file, the database row, the suite's
    /// entry; for secrets the whole keyring (sealed items cannot be edited from outside), after which the store is
    /// opened again.
    func removeOutside(_ key: String, from tier: Tier, _ storage: inout Storage) throws {
        switch tier {
        case .defaults:
            try OutsideHands.editSuite(root: root) { $0[ExactString(key)] = nil }
            try storage.defaults.refresh()
        case .secrets:
            try OutsideHands.removeSecrets(root: root)
            storage = try openStorage(root)
        case .records: #expect(try OutsideHands.records(root: root).delete(key))
        case .files: try OutsideHands.removeFile(key, root: root)
        }
    }

    /// A value something outside Strata removed is never reported: each read meets the stale entry and repairs it
    /// on the spot, and the next check lists the repair once.
    @Test(arguments: Tier.allCases, ["contains", "location", "data", "keys", "value"])
    func aValueRemovedOutsideIsRepairedByTheFirstRead(_ tier: Tier, _ read: String) throws {
        var storage = try openStorage(root)
        try storage.put(Data("value".utf8), for: "k", as: descriptorForTier[tier]!)
        try removeOutside("k", from: tier, &storage)
        #expect(try storage.catalog.location(of: "k")?.tier == tier)
        switch read {
        case "contains": #expect(try !storage.contains("k"))
        case "location": #expect(try storage.location(of: "k") == nil)
        case "data": #expect(try storage.data(for: "k") == nil)
        case "value": #expect(try storage.value(Data.self, for: "k") == nil)
        default: #expect(try storage.keys().isEmpty)
        }
        #expect(try storage.catalog.location(of: "k") == nil, "\(read) repaired the entry")
        try Self.expectGone("k", in: storage, "\(tier), \(read)")
        let report = try storage.verifyCatalog()
        #expect(report.isSound)
        #expect(report.repaired == [RepairedEntry(key: "k", tier: tier, foundIn: nil)], "\(report.lines)")
        #expect(try storage.verifyCatalog().repaired.isEmpty)
    }

    /// A backup taken after a value was removed outside Strata leaves the key out of the snapshot's catalog and
    /// says so, and restores every other key; for every tier.
    @Test(arguments: Tier.allCases)
    func aBackupAfterAnOutsideRemovalRestores(_ tier: Tier) throws {
        var storage = try openStorage(root)
        for other in Tier.allCases {
            try storage.put(Data("kept in \(other)".utf8), for: "kept/\(other)", as: descriptorForTier[other]!)
        }
        try storage.put(Data("lost".utf8), for: "lost", as: descriptorForTier[tier]!)
        try removeOutside("lost", from: tier, &storage)
        let keyFile = directory.appending("repo.key")
        try RepositoryKey.createKeyFile(at: keyFile)
        let repository = try BackupRepository.create(at: directory.appending("repo"), key: .keyFile(keyFile))
        let backup = try storage.backup(to: repository)
        var missing = ["lost"]
        if tier == .secrets { missing.insert("kept/secrets", at: 0) }
        #expect(backup.capture.missingKeys == missing)
        let restored = directory.appending("restored")
        let report = try Storage.restore(
            snapshot: backup.snapshot.id, from: repository, to: restored, secretsKey: testSecretsKey)
        #expect(report.missingKeys == missing)
        let reopened = try openStorage(restored)
        #expect(try reopened.keys() == Tier.allCases.map { "kept/\($0)" }.filter { !missing.contains($0) }.sorted())
        for key in try reopened.keys() { #expect(try reopened.data(for: key) != nil, "\(key)") }
        #expect(try reopened.location(of: "lost") == nil)
        #expect(try reopened.verifyCatalog().isSound)
    }

    /// A removal through the defaults tier's own API, on a suite that writes late, with the catalog placing the key
    /// there: the catalog drops the key when the removal returns, so the suite's file loses it first. Left for the
    /// suite's later write, another process reading the key meanwhile found it in the file with no record, adopted
    /// it back into the catalog, and after the write the catalog placed a key no tier held.
    @Test(arguments: [false, true]) func aRemovalThroughTheSuiteIsOnDiskBeforeTheCatalogDropsTheKey(all: Bool) throws {
        let storage = try openStorage(root)
        try storage.put(Data("value".utf8), for: "k", as: descriptorForTier[.defaults]!)
        try storage.backend(for: .defaults).flush()
        let late = DefaultsConfiguration(durability: .coalesced(.seconds(60)))
        let suite = try DefaultsStore(suite: "standard", paths: try StoragePaths(root: root), configuration: late)
        if all {
            try suite.removeAll()
        } else {
            #expect(try suite.removeObject(forKey: "k"))
        }
        let child = try TestExecutables.url(named: "strata-test-child")
        let reader = try ChildProcess.run(
            child, ["storage-read", root, "k"], environment: ["STRATA_SECRETS_KEY": testSecretsKeyHex])
        #expect(reader.status == 0, "\(reader.failureSummary)")
        #expect(reader.standardOutput == "none\n")
        try Self.expectGone("k", in: try openStorage(root), "after the removal")
        #expect(try storage.verifyCatalog().isSound)
    }
}

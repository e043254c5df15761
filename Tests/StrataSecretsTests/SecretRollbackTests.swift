import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 17 item 3: an older copy of an item put back over the current one is refused, not returned.
@Suite("SecretStore: rollback")
struct SecretRollbackTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    func file(_ store: SecretStore, _ service: String, _ account: String) throws -> String {
        fixture.keyringFolder() + "/" + (try store.fileName(ItemIdentity(service: service, account: account)))
    }

    /// Stores `revoked` then `current` for api/alice, and returns the item's path and its `revoked` file.
    func revokedCopy(_ store: SecretStore, _ accessibility: SecretAccessibility = .whenUnlocked) throws -> (
        path: String, old: Data
    ) {
        try store.set("revoked", service: "api", account: "alice", accessibility: accessibility)
        let path = try file(store, "api", "alice")
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        try store.set("current", service: "api", account: "alice", accessibility: accessibility)
        return (path, old)
    }

    @Test(arguments: SecretAccessibility.allCases)
    func anOlderItemPutBackIsRefused(_ accessibility: SecretAccessibility) throws {
        let store = try fixture.fileStore()
        let (path, old) = try revokedCopy(store, accessibility)
        try old.write(to: URL(fileURLWithPath: path))
        for reader in [store, try fixture.fileStore()] {
            let refused = #expect(throws: StorageError.self) { try reader.get(service: "api", account: "alice") }
            #expect(refused?.code == .rolledBack)
            #expect(refused?.path == path)
            #expect(refused?.key == "api/alice")
            #expect(refused?.recovery != nil)
            #expect(throws: StorageError.self) { try reader.attributes(service: "api", account: "alice") }
            #expect(throws: StorageError.self) { try reader.items() }
        }
        try store.set("again", service: "api", account: "alice", accessibility: accessibility)
        #expect(try store.get(service: "api", account: "alice")?.stringValue == "again", "a new write heals it")
    }

    @Test func aDeletedItemPutBackIsRefused() throws {
        let store = try fixture.fileStore()
        try store.set("revoked", service: "api", account: "alice")
        try store.set("kept", service: "api", account: "bob")
        let path = try file(store, "api", "alice")
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try store.delete(service: "api", account: "alice"))
        try old.write(to: URL(fileURLWithPath: path))
        let refused = #expect(throws: StorageError.self) { try store.get(service: "api", account: "alice") }
        #expect(refused?.code == .rolledBack)
        #expect(try store.get(service: "api", account: "bob")?.stringValue == "kept")
        try store.set("new", service: "api", account: "alice")
        #expect(try store.get(service: "api", account: "alice")?.stringValue == "new")
    }

    @Test func theClockGoingBackStillAdvancesTheGeneration() throws {
        let store = try fixture.fileStore()
        try store.set("one", service: "api", account: "alice")
        let name = try store.fileName(ItemIdentity(service: "api", account: "alice"))
        let folder = try store.keyringFolder()
        // As if the first write happened an hour ahead of the clock.
        let ahead = Date().addingTimeInterval(3600).timeIntervalSince1970
        try store.keyringLock(in: folder).withLock(.exclusive, timeout: .seconds(5)) {
            try store.advanceManifest(in: folder) { manifest, _ in
                manifest.entries[name] = ItemManifest.Entry(modified: ahead, deleted: false)
            }
        }
        #expect(throws: StorageError.self) { try store.get(service: "api", account: "alice") }
        try store.set("two", service: "api", account: "alice")
        #expect(try store.get(service: "api", account: "alice")?.stringValue == "two")
        #expect(try store.attributes(service: "api", account: "alice")!.modificationDate.timeIntervalSince1970 > ahead)
    }

    @Test func anEditedOrForeignManifestIsRefused() throws {
        let store = try fixture.fileStore()
        try store.set("one", service: "api", account: "alice")
        let manifest = fixture.keyringFolder() + "/" + ItemManifest.fileName
        var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
        bytes[bytes.count - 40] ^= 1
        try bytes.write(to: URL(fileURLWithPath: manifest))
        let refused = #expect(throws: StorageError.self) {
            try fixture.fileStore().get(service: "api", account: "alice")
        }
        #expect(refused?.code == .corrupt)
        #expect(refused?.path == manifest)
    }

    @Test func aManifestListsItsEntriesInNameOrderAndReadsBack() throws {
        let store = try fixture.fileStore()
        try store.set((0..<300).map { SecretWrite(Secret("value \($0)"), service: "s", account: "a\($0)") })
        try store.set(Secret(Data(count: 4096)), service: "s", account: "large")
        try store.delete(service: "s", account: "a7")
        let folder = try store.keyringFolder()
        let (manifest, owner) = try store.currentManifest(in: folder)
        let bytes = try manifest.serialized(keyringID: try store.manifestKeyringID(), key: owner.manifest)
        let (parsed, _) = try ItemManifest.parse(
            bytes, keyringID: try store.manifestKeyringID(), keys: [owner], path: "test")
        #expect(parsed == manifest)
        // The entries follow each other in the order of their names, each led by the name's 16 bytes.
        var offset =
            ItemManifest.magic.count + 1 + (try store.manifestKeyringID()).count + 16 + ItemManifest.sequenceFieldsSize
            + 4
        var names: [String] = []
        let body = [UInt8](bytes.dropLast(ItemManifest.tagBytes))
        while offset < body.count {
            names.append(Hex.encode(body[offset..<(offset + 16)]) + SecretStore.itemSuffix)
            let flags = body[offset + 24]
            offset += 25
            if flags == ItemManifest.inlineFlag {
                offset += 4 + body[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            }
        }
        #expect(offset == body.count)
        #expect(names == manifest.entries.keys.sorted())
        #expect(names.count == 301)
    }

    @Test func onlyItemFileNamesHaveRawNames() throws {
        let name = String(repeating: "0123456789abcdef", count: 2) + SecretStore.itemSuffix
        let raw = try #require(ItemManifest.rawName(name))
        #expect(raw.high == 0x0123_4567_89ab_cdef && raw.low == 0x0123_4567_89ab_cdef)
        let upper = String(repeating: "0123456789ABCDEF", count: 2) + SecretStore.itemSuffix
        #expect(ItemManifest.rawName(upper)?.high == raw.high)
        for bad in [
            "", String(name.dropFirst()), "g" + name.dropFirst(), String(name.dropLast()) + "x", name + "x",
            String(repeating: "/", count: 32) + SecretStore.itemSuffix,
            String(repeating: ":", count: 32) + SecretStore.itemSuffix,
            String(repeating: "é", count: 16) + SecretStore.itemSuffix,
        ] {
            #expect(ItemManifest.rawName(bad) == nil, "\(bad)")
        }
    }

    @Test func everyTruncationAndByteFlipOfTheManifestIsRefused() throws {
        try fixture.fileStore().set("one", service: "api", account: "alice")
        let path = fixture.keyringFolder() + "/" + ItemManifest.fileName
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        var variants = (0..<good.count).map { good.prefix($0) }
        for index in good.indices {
            var flipped = good
            flipped[index] ^= 0x20
            variants.append(flipped)
        }
        for (number, variant) in variants.enumerated() {
            try variant.write(to: URL(fileURLWithPath: path))
            let refused = #expect(throws: StorageError.self, "variant \(number)") {
                try fixture.fileStore().get(service: "api", account: "alice")
            }
            #expect([.corrupt, .locked, .unsupportedVersion].contains(refused?.code), "variant \(number)")
        }
    }

    @Test func aMissingManifestIsRefused() throws {
        let (path, old) = try revokedCopy(try fixture.fileStore())
        // Deleting the manifest must not switch the check off.
        let manifest = fixture.keyringFolder() + "/" + ItemManifest.fileName
        try FileManager.default.removeItem(atPath: manifest)
        try old.write(to: URL(fileURLWithPath: path))
        let refused = #expect(throws: StorageError.self) {
            try fixture.fileStore().get(service: "api", account: "alice")
        }
        #expect(refused?.code == .rolledBack)
        #expect(refused?.path == manifest)
    }

    @Test func aWriterKilledBetweenItemAndManifestLeavesTheNewItemReadable() throws {
        let store = try fixture.fileStore()
        try store.set("first", service: "api", account: "alice")
        let child = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-set-stop-before-manifest", fixture.paths.root, testKeyHex, "api", "alice", "second"])
        let line = try child.waitForLine { $0.hasPrefix("between") || $0 == "set" }
        child.kill(SIGKILL)
        #expect(child.wait().wasSignalled)
        #expect(line == "between io", "the item is durable, its manifest entry not")
        for reader in [store, try fixture.fileStore()] {
            #expect(try reader.get(service: "api", account: "alice")?.stringValue == "second")
            #expect(try reader.items().count == 1)
        }
        try store.set("third", service: "api", account: "alice")
        #expect(try fixture.fileStore().get(service: "api", account: "alice")?.stringValue == "third")
    }

    @Test func twoProcessesWritingKeepTheManifestConsistent() throws {
        _ = try fixture.fileStore()
        let child = try TestExecutables.url(named: "strata-test-child")
        let processes = try (0..<2).map { writer in
            try ChildProcess(child, ["secrets-write-accounts", fixture.paths.root, testKeyHex, "w\(writer)", "30"])
        }
        for process in processes { #expect(process.wait().status == 0) }
        let store = try fixture.fileStore()
        let manifest = try store.currentManifest(in: store.keyringFolder()).manifest
        #expect(manifest.entries.count == 60)
        for item in try store.items(service: "shared") {
            let name = try store.fileName(ItemIdentity(service: item.service, account: item.account))
            #expect(manifest.entries[name]?.modified == item.modificationDate.timeIntervalSince1970, "\(item.account)")
        }
    }
}

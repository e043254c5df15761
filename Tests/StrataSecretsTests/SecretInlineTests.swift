import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 18 item 4: small items live inside the keyring's manifest (format version 2), so a set of one is one
/// atomic replace, as the raw baseline's; larger items, and `...ThisDeviceOnly` ones, keep files of their own.
@Suite("SecretStore: items inside the manifest")
struct SecretInlineTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    var manifestPath: String { fixture.keyringFolder() + "/" + ItemManifest.fileName }

    func inlineItems() throws -> [String: Data] {
        try #require(ItemManifest.unauthenticatedInlineItems(Data(contentsOf: URL(fileURLWithPath: manifestPath))))
    }

    func itemPath(_ store: SecretStore, _ service: String, _ account: String) throws -> String {
        fixture.keyringFolder() + "/" + (try store.fileName(ItemIdentity(service: service, account: account)))
    }

    @Test func aSmallItemLivesInTheManifestALargeOneInAFile() throws {
        let store = try fixture.store()
        let large = String(repeating: "x", count: 2048)
        try store.set("small", service: "s", account: "a", label: "kept")
        let name = try store.fileName(ItemIdentity(service: "s", account: "a"))
        #expect(try fixture.itemFiles().isEmpty)
        #expect(try inlineItems().keys.sorted() == [name])
        #expect(try Data(contentsOf: URL(fileURLWithPath: manifestPath))[8] == ItemManifest.version)
        // Moved to a file and back, the label and creation date kept, each reader sees the current value.
        let created = try #require(try store.attributes(service: "s", account: "a")).creationDate
        try store.set(large, service: "s", account: "a")
        #expect(try fixture.itemFiles().map { ($0 as NSString).lastPathComponent } == [name])
        #expect(try inlineItems().isEmpty)
        for reader in [store, try fixture.store()] {
            #expect(try reader.get(service: "s", account: "a")?.stringValue == large)
        }
        try store.set("small again", service: "s", account: "a")
        #expect(try fixture.itemFiles().isEmpty, "the file it moved out of is removed")
        for reader in [store, try fixture.store()] {
            #expect(try reader.get(service: "s", account: "a")?.stringValue == "small again")
            #expect(try reader.attributes(service: "s", account: "a")?.label == "kept")
            #expect(try reader.attributes(service: "s", account: "a")?.creationDate == created)
            #expect(try reader.contains(service: "s", account: "a"))
            #expect(try reader.items().map(\.account) == ["a"])
        }
        // A ...ThisDeviceOnly item never goes into the manifest: a backup copies the manifest whole.
        try store.set("bound", service: "s", account: "device", accessibility: .afterFirstUnlockThisDeviceOnly)
        #expect(try fixture.itemFiles().count == 1)
        #expect(store.itemCount == 2)
        #expect(try store.delete(service: "s", account: "a"))
        #expect(try store.get(service: "s", account: "a") == nil)
        #expect(try !store.contains(service: "s", account: "a"))
        #expect(try inlineItems().isEmpty)
        #expect(store.itemCount == 1)
        #expect(store.structuralProblems().isEmpty)
    }

    /// The manifest holds at most `inlineTotalLimit` bytes of items; the rest get files, and room freed by a
    /// deletion or a move is used again.
    @Test func theManifestKeepsItsBudget() throws {
        var configuration = fastPasswords
        configuration.inlineTotalLimit = 1000
        let store = try SecretStore(paths: fixture.paths, unlockingWith: testKey, configuration: configuration)
        try store.set((0..<10).map { SecretWrite(Secret("value \($0)"), service: "s", account: "\($0)") })
        let inline = try inlineItems()
        #expect(inline.values.reduce(0) { $0 + $1.count } <= 1000)
        #expect(!inline.isEmpty)
        #expect(inline.count + (try fixture.itemFiles().count) == 10)
        for index in 0..<10 {
            #expect(try store.get(service: "s", account: "\(index)")?.stringValue == "value \(index)")
        }
        #expect(try store.items().count == 10)
        #expect(store.itemCount == 10)
    }

    /// An item moving from a file into the manifest, and back, leaves no state where an older file put back reads
    /// as current: while the entry holds the item, a file of its name is a leftover, never read; once it moves out
    /// again, its generation is past every earlier one.
    @Test func movingBetweenFileAndManifestLeavesNoRollbackWindow() throws {
        let store = try fixture.store()
        let large = { (tag: String) in tag + String(repeating: ".", count: 2048) }
        try store.set(large("old"), service: "s", account: "a")
        let path = try itemPath(store, "s", "a")
        let oldFile = try Data(contentsOf: URL(fileURLWithPath: path))
        try store.set("current", service: "s", account: "a")
        #expect(!FileManager.default.fileExists(atPath: path))
        try oldFile.write(to: URL(fileURLWithPath: path))  // The older file put back.
        for reader in [store, try fixture.store()] {
            #expect(try reader.get(service: "s", account: "a")?.stringValue == "current", "the leftover is not read")
            #expect(try reader.items().count == 1)
        }
        #expect(store.itemCount == 1)
        try store.set(large("new"), service: "s", account: "a")  // Replaces the leftover, a generation later.
        #expect(try store.get(service: "s", account: "a")?.stringValue == large("new"))
        try oldFile.write(to: URL(fileURLWithPath: path))
        let refused = #expect(throws: StorageError.self) { try fixture.store().get(service: "s", account: "a") }
        #expect(refused?.code == .rolledBack)
        // A deleted item's file put back is refused, whether the item lived in the manifest or not.
        try store.set("small", service: "s", account: "a")
        try store.delete(service: "s", account: "a")
        try oldFile.write(to: URL(fileURLWithPath: path))
        let deleted = #expect(throws: StorageError.self) { try fixture.store().get(service: "s", account: "a") }
        #expect(deleted?.code == .rolledBack)
        // The next write removes the leftover.
        try store.set("healed", service: "s", account: "a")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try fixture.store().get(service: "s", account: "a")?.stringValue == "healed")
    }

    /// A keyring whose manifest an earlier version wrote (format 1, items in files) keeps reading, rollback
    /// detection included, and its manifest becomes the current version on its first write.
    @Test func aVersionOneManifestIsReadAndUpgradedOnTheFirstWrite() throws {
        let old = try fixture.fileStore()
        try old.set("first", service: "s", account: "a")
        let path = try itemPath(old, "s", "a")
        let revoked = try Data(contentsOf: URL(fileURLWithPath: path))
        try old.set("second", service: "s", account: "b")
        try old.set("current", service: "s", account: "a")
        try old.delete(service: "s", account: "b")
        // The manifest as version 1 wrote it: its entries, 25 bytes each, tagged under the manifest key.
        let (manifest, owner) = try old.currentManifest(in: old.keyringFolder())
        var body = ItemManifest.magic + [1] + (try old.manifestKeyringID()) + manifest.keyCheck
        ItemEnvelope.appendUInt64(UInt64(manifest.entries.count), to: &body, width: 4)
        for name in manifest.entries.keys.sorted() {
            let entry = manifest.entries[name]!
            let raw = try #require(ItemManifest.rawName(name))
            ItemEnvelope.appendUInt64(raw.high, to: &body)
            ItemEnvelope.appendUInt64(raw.low, to: &body)
            ItemEnvelope.appendUInt64(entry.modified.bitPattern, to: &body)
            body.append(entry.deleted ? 1 : 0)
        }
        let tag = try owner.manifest.withBytes { Sodium.keyedHash(body, key: $0, length: ItemManifest.tagBytes) }
        try Data(body + tag).write(to: URL(fileURLWithPath: manifestPath))
        // An earlier version kept no anchor (see ManifestAnchor).
        try FileManager.default.removeItem(atPath: fixture.keyringFolder() + "/" + ManifestAnchor.fileName)
        let store = try fixture.store()
        #expect(try store.get(service: "s", account: "a")?.stringValue == "current")
        #expect(try store.get(service: "s", account: "b") == nil)
        try revoked.write(to: URL(fileURLWithPath: path))
        let refused = #expect(throws: StorageError.self) { try fixture.store().get(service: "s", account: "a") }
        #expect(refused?.code == .rolledBack, "the version 1 entry still vouches")
        try store.set("small", service: "s", account: "c")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: manifestPath))[8] == ItemManifest.version,
            "upgraded on the first write")
        let reopened = try fixture.store()
        #expect(try reopened.get(service: "s", account: "c")?.stringValue == "small")
        #expect(throws: StorageError.self) { try reopened.get(service: "s", account: "a") }
        try store.set("healed", service: "s", account: "a")
        #expect(try fixture.store().items().map(\.account) == ["a", "c"])
        #expect(try fixture.itemFiles().isEmpty, "both moved into the manifest")
    }

    /// Every malformed entry of a version 3 manifest, correctly tagged (as only a key holder could write it), is
    /// refused as `corrupt`, never trusted nor crashed on.
    @Test func aMalformedManifestIsRefusedEvenWhenTagged() throws {
        let store = try fixture.store()
        try store.set("small", service: "s", account: "a")
        let (_, owner) = try store.currentManifest(in: store.keyringFolder())
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: manifestPath)))
        let body = Array(good.dropLast(ItemManifest.tagBytes))
        let header = ItemManifest.magic.count + 1 + 16 + 16 + ItemManifest.sequenceFieldsSize + 4
        let flags = header + 24
        var variants: [[UInt8]] = []
        for flag: UInt8 in [3, 4, 0x80] {
            var bad = body
            bad[flags] = flag
            variants.append(bad)
        }
        variants.append(Array(body.dropLast()))  // The inline item cut short.
        variants.append(body + [0])  // A byte past the last entry.
        var huge = body
        huge[flags + 1] = 0xFF  // An inline size past the end.
        variants.append(huge)
        var empty = body
        empty.replaceSubrange((flags + 1)..<(flags + 5), with: [0, 0, 0, 0])  // An empty inline item.
        variants.append(empty)
        var count = body
        count[header - 1] = 2  // One entry more than there is.
        variants.append(count)
        for (index, variant) in variants.enumerated() {
            let tag = try owner.manifest.withBytes { Sodium.keyedHash(variant, key: $0, length: ItemManifest.tagBytes) }
            let refused = #expect(throws: StorageError.self, "variant \(index)") {
                try ItemManifest.parse(
                    Data(variant + tag), keyringID: store.manifestKeyringID(), keys: [owner], path: manifestPath)
            }
            #expect(refused?.code == .corrupt, "variant \(index)")
            _ = ItemManifest.unauthenticatedInlineItems(Data(variant + tag))  // Never crashes.
        }
    }

    /// A rotation re-seals the items inside the manifest with the manifest itself: afterwards the old
    /// `keyring.json` opens none of them, and an export, a listing and every get see them all.
    @Test func aRotationResealsTheItemsInsideTheManifest() throws {
        let store = try fixture.store()
        try store.set((0..<6).map { SecretWrite(Secret("value \($0)"), service: "s", account: "\($0)") })
        try store.set(String(repeating: "x", count: 2048), service: "s", account: "large")
        let keyringPath = fixture.keyringFolder() + "/keyring.json"
        let oldKeyring = try Data(contentsOf: URL(fileURLWithPath: keyringPath))
        let before = try inlineItems()
        #expect(try store.rotate(with: testKey) == SecretRotation(resealed: 7, unreadable: []))
        let after = try inlineItems()
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after.allSatisfy { before[$0.key] != $0.value }, "every inline item sealed anew")
        for reader in [store, try fixture.store()] {
            for index in 0..<6 {
                #expect(try reader.get(service: "s", account: "\(index)")?.stringValue == "value \(index)")
            }
            #expect(try reader.items().count == 7)
        }
        try oldKeyring.write(to: URL(fileURLWithPath: keyringPath))
        let refused = #expect(throws: StorageError.self) { try fixture.store().get(service: "s", account: "0") }
        #expect(refused?.code == .rolledBack)
        #expect(refused?.path == keyringPath)
    }

    /// Writers killed at any point of single sets that move items between the manifest and files (and keep
    /// small ones small): every item has the value of the last generation acknowledged or of the one under way,
    /// whole, never missing, never reported rolled back; later writes keep working.
    @Test(arguments: ["secrets-move-loop", "secrets-move-batch-loop"])
    func aWriterKilledWhileItemsMoveLeavesEachOldOrNew(_ mode: String) throws {
        let count = 6
        try killBatchWriter(fixture, mode: mode, count: count, rounds: 16) { store, acknowledged in
            for index in 0..<count {
                let value = try store.get(service: "move", account: "m\(index)")?.stringValue
                #expect(
                    value == movingValue(acknowledged, index) || value == movingValue(acknowledged + 1, index),
                    "\(mode) item \(index) after ack \(acknowledged): \(value?.prefix(20) ?? "none")")
            }
            #expect(try store.items(service: "move").count == count)
            #expect(store.itemCount == count)
        }
        let store = try fixture.store()
        try store.set("after", service: "move", account: "m0")
        #expect(try fixture.store().get(service: "move", account: "m0")?.stringValue == "after")
    }

    /// A reader in another process than the writer never misses an item while it moves between the manifest
    /// and a file (a reader that read the manifest before a move into it finds no file, and reads the manifest
    /// again), nor sees it rolled back: every get gives a whole value of some generation, never none.
    @Test func aReaderNeverMissesAnItemMovingBetweenManifestAndFile() throws {
        let count = 3
        let store = try fixture.store()
        for index in 0..<count { try store.set(movingValue(0, index), service: "move", account: "m\(index)") }
        let writer = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"),
            ["secrets-move-loop", fixture.paths.root, testKeyHex, "\(count)", "1"])
        defer { writer.kill(SIGKILL) }
        _ = try writer.waitForLine { $0.hasPrefix("ack ") }
        var reads = 0
        // Two seconds of reading, longer on a busy machine until the writer has moved the items a few times (a
        // minute at most): the check needs moves to have happened under the reads, not a given speed.
        let started = Date()
        func acknowledged() -> Int {
            writer.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
        }
        while Date().timeIntervalSince(started) < 2
            || (Date().timeIntervalSince(started) < 60 && acknowledged() <= 3)
        {
            for index in 0..<count {
                let value = try #require(try store.get(service: "move", account: "m\(index)")?.stringValue)
                let generation = try #require(Int(value.split(separator: " ")[1]))
                #expect(value == movingValue(generation, index))
                reads += 1
            }
        }
        writer.kill(SIGKILL)
        _ = writer.wait()
        #expect(acknowledged() > 3, "the writer moved items meanwhile (\(acknowledged()) generations, \(reads) reads)")
    }

    /// The same values as the child's move loops (Tests/Child/SecretsInlineModes.swift).
    func movingValue(_ generation: Int, _ index: Int) -> String {
        let value = "value \(generation) \(index)"
        return (generation + index) % 3 == 0 ? value + String(repeating: ".", count: 2048) : value
    }
}

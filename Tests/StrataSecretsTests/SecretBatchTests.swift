import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSecrets

/// Issue 18 item 4: a batch of items under one lock and one flush, item by item atomic, and a single set that
/// costs one `fsync` less.
@Suite("SecretStore: batches")
struct SecretBatchTests {
    let fixture: SecretsFixture
    init() throws { fixture = try SecretsFixture() }

    func writes(_ count: Int, _ value: String) -> [SecretWrite] {
        (0..<count).map { SecretWrite(Secret("\(value) \($0)"), service: "batch", account: "b\($0)") }
    }

    @Test func aBatchStoresEveryItemKeepingCreationDatesAndLabels() throws {
        let store = try fixture.store()
        try store.set("old", service: "batch", account: "b1", label: "kept label")
        let created = try #require(try store.attributes(service: "batch", account: "b1")).creationDate
        var batch = writes(3, "new")
        batch[2].label = "given"
        batch[2].accessibility = .afterFirstUnlockThisDeviceOnly
        try store.set(batch)
        for reader in [store, try fixture.store()] {
            for index in 0..<3 {
                #expect(try reader.get(service: "batch", account: "b\(index)")?.stringValue == "new \(index)")
            }
            let replaced = try #require(try reader.attributes(service: "batch", account: "b1"))
            #expect(replaced.label == "kept label")
            #expect(replaced.creationDate == created)
            #expect(replaced.modificationDate > created)
            let third = try #require(try reader.attributes(service: "batch", account: "b2"))
            #expect(third.label == "given")
            #expect(third.accessibility == .afterFirstUnlockThisDeviceOnly)
        }
        #expect(store.itemCount == 3)
        #expect(store.structuralProblems().isEmpty)
        try store.set([])  // Nothing to do, nothing changes.
        #expect(store.itemCount == 3)
    }

    /// A batch large enough to be sealed on several threads: every item replaced keeps its own creation date and
    /// label, and every new one gets the batch's.
    @Test func aBatchSealedOnEveryCoreKeepsEachItemsAttributes() throws {
        let store = try fixture.store()
        let count = SecretStore.concurrentSealingMinimum * 3
        for index in stride(from: 0, to: count, by: 2) {
            try store.set("old", service: "batch", account: "b\(index)", label: "label \(index)")
        }
        var created: [Date] = []
        for index in stride(from: 0, to: count, by: 2) {
            created.append(try #require(try store.attributes(service: "batch", account: "b\(index)")).creationDate)
        }
        try store.set(writes(count, "new"))
        let reader = try fixture.store()
        for index in 0..<count {
            #expect(try reader.get(service: "batch", account: "b\(index)")?.stringValue == "new \(index)")
            let item = try #require(try reader.attributes(service: "batch", account: "b\(index)"))
            #expect(item.label == (index % 2 == 0 ? "label \(index)" : ""), "item \(index)")
            if index % 2 == 0 { #expect(item.creationDate == created[index / 2], "item \(index)") }
        }
    }

    /// The split work comes back in order, and a failure is the one of the lowest index that failed, whichever
    /// thread met it first.
    @Test func concurrentWorkKeepsItsOrderAndReportsTheFirstFailure() throws {
        struct Failed: Error { let index: Int }
        for count in [0, 1, SecretStore.concurrentSealingMinimum - 1, 1000] {
            #expect(try SecretStore.concurrently(count) { $0 * 2 } == (0..<count).map { $0 * 2 })
        }
        let failure = #expect(throws: Failed.self) {
            _ = try SecretStore.concurrently(1000) { index in
                if index == 700 || index == 300 { throw Failed(index: index) }
                return index
            }
        }
        #expect(failure?.index == 300)
    }

    /// Canonically equivalent spellings are two items (keys are kept exactly as given), not a duplicate.
    @Test func twoSpellingsOfOneNameAreTwoItems() throws {
        let store = try fixture.store()
        try store.set([
            SecretWrite(Secret("composed"), service: "batch", account: "caf\u{E9}"),
            SecretWrite(Secret("decomposed"), service: "batch", account: "cafe\u{301}"),
        ])
        #expect(try store.get(service: "batch", account: "caf\u{E9}")?.stringValue == "composed")
        #expect(try store.get(service: "batch", account: "cafe\u{301}")?.stringValue == "decomposed")
    }

    static let badItems: [(String, SecretWrite, StorageError.Code)] = [
        ("empty account", SecretWrite(Secret("v"), service: "batch", account: ""), .invalidArgument),
        (
            "long label",
            SecretWrite(Secret("v"), service: "batch", account: "x", label: String(repeating: "l", count: 2000)),
            .tooLarge
        ),
        ("named twice", SecretWrite(Secret("again"), service: "batch", account: "b0"), .invalidArgument),
        (
            "value over the limit", SecretWrite(Secret(Data(count: (16 << 20) + 1)), service: "batch", account: "big"),
            .tooLarge
        ),
    ]

    @Test(arguments: badItems.indices)
    func aBadItemFailsTheBatchWithNothingWritten(_ index: Int) throws {
        let (name, bad, code) = Self.badItems[index]
        let store = try fixture.store()
        try store.set(writes(3, "old"))
        let before = filesUnder(fixture.keyringFolder()).map(\.data)
        let refused = #expect(throws: StorageError.self, "\(name)") { try store.set(writes(3, "new") + [bad]) }
        #expect(refused?.code == code, "\(name)")
        #expect(filesUnder(fixture.keyringFolder()).map(\.data) == before, "\(name): nothing written")
        for index in 0..<3 {
            #expect(try store.get(service: "batch", account: "b\(index)")?.stringValue == "old \(index)")
        }
    }

    @Test func aBatchAdvancesTheRollbackManifest() throws {
        let store = try fixture.fileStore()
        try store.set(writes(4, "revoked"))
        let path = fixture.keyringFolder() + "/" + (try store.fileName(ItemIdentity(service: "batch", account: "b2")))
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        try store.set(writes(4, "current"))
        try old.write(to: URL(fileURLWithPath: path))
        let refused = #expect(throws: StorageError.self) { try store.get(service: "batch", account: "b2") }
        #expect(refused?.code == .rolledBack)
        #expect(try store.get(service: "batch", account: "b3")?.stringValue == "current 3")
    }

    /// A batch writer killed at any point: every item has the value of the last batch acknowledged or of the one
    /// under way, never none, never torn, never reported rolled back; later writes keep working.
    @Test func aBatchKilledMidwayLeavesEveryItemOldOrNew() throws {
        let count = 40
        try killBatchWriter(fixture, mode: "secrets-batch-loop", count: count, rounds: 20) { store, acknowledged in
            var values = Set<String>()
            for index in 0..<count {
                let value = try store.get(service: "batch", account: "b\(index)")?.stringValue
                #expect(
                    value == "value \(acknowledged)" || value == "value \(acknowledged + 1)",
                    "item \(index): \(value ?? "none")")
                values.insert(value ?? "none")
            }
            #expect(values.count <= 2)
        }
        // The manifest still vouches for every item: a write after the kills reads back.
        let store = try fixture.store()
        try store.set(writes(count, "after"))
        #expect(try store.get(service: "batch", account: "b7")?.stringValue == "after 7")
    }

    /// What a durable write costs, in `fsync`s, and what a warm get opens.
    ///
    /// A small item lives in the manifest: a set, and a batch of such items, is one atomic replace of the manifest
    /// (handed to the disk, flushed, renamed, the folder flushed), the raw atomic replace's own steps; a get reads
    /// the manifest alone — held open once read, it opens no file — and once it is settled only stats: the folder's
    /// lstat and the manifest's fstatat.
    ///
    /// An item in a file (`files`) has two flush points, as the raw atomic replace has: the item's and the
    /// manifest's new files are handed to the disk together and flushed at the same time (one `fdatasync` each)
    /// before any rename, then the item is renamed and the folder flushed, then the manifest renamed (its rename
    /// rides on the folder's next flush). A batch flushes its items and the manifest with one `syncfs`, then the
    /// folder.
    @Test(arguments: [true, false])
    func aSetFlushesItemAndManifestTogetherABatchOnceAndASettledGetOpensNoFile(_ inline: Bool) throws {
        _ = try fixture.store()
        let child = try TestExecutables.url(named: "strata-test-child")
        let process = try ChildProcess(
            child, ["secrets-count-fsyncs", fixture.paths.root, testKeyHex, "50"] + (inline ? [] : ["files"]))
        let line = try process.waitForLine { $0.hasPrefix("set ") }
        _ = process.wait()
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        if inline {
            #expect(numbers.prefix(2) == [2, 2], "\(line)")
            // The manifest replaced alone, then its anchor (renamed without a flush: see ManifestAnchor).
            #expect(line.hasSuffix("set-order writeback,fsync,rename,fsync,rename"), "\(line)")
            // Just after the write, a second get opens no file either: the manifest, too fresh for its stamp to
            // vouch for it, is the one the first get read and holds open (PinnedFile), and it opens the value's box
            // (the attributes' bytes are those it sealed); settled, the stamps vouch.
            #expect(Array(numbers.dropFirst(2)) == [0, 1, 0, 2, 1], "\(line)")
            return
        }
        #if os(Linux)
            #expect(numbers.prefix(2) == [3, 2], "\(line)")
        #else
            #expect(numbers.first == 3, "\(line)")  // Without syncfs, a batch fsyncs each new file.
        #endif
        #expect(
            line.hasSuffix("set-order writeback,writeback,fsync,fsync,rename,fsync,rename"),
            "item and manifest flushed together, the item renamed and the folder flushed, then the manifest: \(line)")
        // A second get just after the write opens the item (its stamp is too fresh to vouch for it: another
        // writer could have replaced it within the same clock tick) but not the manifest, held open since the first
        // get read it (PinnedFile), and opens one sealed box, the value's: the attributes' bytes are those it
        // opened last time. Once both are settled, a get opens no file: the folder's lstat and the manifest's and
        // the item's fstatat, and the value's box.
        #expect(Array(numbers.dropFirst(2)) == [1, 1, 0, 3, 1], "\(line)")
    }

    /// A warm read skips the attributes box only while its bytes are those that opened: an item replaced (by this
    /// process or another), tampered with in its attributes, or read after another unlock opens both boxes again.
    @Test func rememberedAttributesNeverOutliveTheirBytes() throws {
        let store = try fixture.fileStore()
        try store.set("one", service: "s", account: "a", label: "first")
        _ = try store.get(service: "s", account: "a")
        let before = SecretStore.boxesOpened
        #expect(try store.get(service: "s", account: "a")?.stringValue == "one")
        // Other tests run in parallel in this process: at least one box, the value's, and a warm read is checked
        // exactly in a child process (aSetFlushesItemAndManifestTogetherABatchOnceAndASettledGetOpensNoFile).
        #expect(SecretStore.boxesOpened - before >= 1)
        // Replaced by another store (as by another process): new attributes, read and opened.
        try fixture.fileStore().set("two", service: "s", account: "a", label: "second")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "two")
        #expect(try store.attributes(service: "s", account: "a")?.label == "second")
        // A flipped byte in the sealed attributes is refused, even right after a good read.
        let path = try #require(fixture.itemFiles().first)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let good = bytes
        bytes[ItemEnvelope.headerSize + Sodium.nonceBytes + 4 + 2] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let tampered = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(tampered?.code == .corrupt)
        try Data(good).write(to: URL(fileURLWithPath: path))
        #expect(try store.get(service: "s", account: "a")?.stringValue == "two")
        // After lock() the whenUnlocked key is gone: nothing remembered opens the item.
        store.lock()
        let locked = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(locked?.code == .locked)
    }

    /// The keyring folder a store keeps open is given again only while its path still names it: moved away,
    /// replaced or swapped for a link, it is opened afresh with every check, never read stale.
    @Test func aKeyringFolderMovedOrSwappedIsNotReadStale() throws {
        let store = try fixture.store()
        try store.set("v", service: "s", account: "a")
        #expect(try store.get(service: "s", account: "a")?.stringValue == "v")
        let folder = fixture.keyringFolder()
        try FileManager.default.moveItem(atPath: folder, toPath: folder + "-moved")
        let missing = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(missing?.code == .notFound)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: folder + "-moved")
        let linked = #expect(throws: StorageError.self) { try store.get(service: "s", account: "a") }
        #expect(linked?.code == .symbolicLink)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: folder + "-moved", toPath: folder)
        #expect(try store.get(service: "s", account: "a")?.stringValue == "v")
    }
}

/// Starts the child `mode` (a batch writer: ROOT KEYHEX COUNT START, saying `ack N`), kills it with SIGKILL at a
/// point that moves from round to round, and checks the keyring with a new store and the last generation
/// acknowledged, then checks that no item reads damaged; `rounds` times (a quarter of `STRATA_TORTURE_ROUNDS` when
/// set), each starting two generations past the last acknowledged.
func killBatchWriter(
    _ fixture: SecretsFixture, mode: String, count: Int, rounds: Int, _ check: (SecretStore, Int) throws -> Void
) throws {
    _ = try fixture.store()
    let child = try TestExecutables.url(named: "strata-test-child")
    var next = 0
    let rounds = ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init).map { $0 / 4 } ?? rounds
    for round in 0..<rounds {
        let process = try ChildProcess(child, [mode, fixture.paths.root, testKeyHex, "\(count)", "\(next)"])
        try process.waitForLine { $0.hasPrefix("ack ") }
        Thread.sleep(forTimeInterval: Double(round % 9) / 1000)
        process.kill(SIGKILL)
        _ = process.wait()
        let acknowledged = process.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()!
        let store = try fixture.store()
        try check(store, acknowledged)
        #expect(store.structuralProblems().isEmpty, "\(mode), round \(round)")
        next = acknowledged + 2
    }
}

import Foundation
import StrataSystem
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataCore

/// The catalog's own parts: the checksum that frames its records, the in-memory table, and the log read back in
/// chunks and batches.
@Suite("Storage catalog")
struct StorageCatalogTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func checksumMatchesTheStandardVectorAndTheTable() {
        // The check value of CRC-32C (Castagnoli) over "123456789".
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        // Whatever the processor offers, every length and alignment agrees with the byte-at-a-time table.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { all in
            for start in 0..<9 {
                for length in 0..<(all.count - start) where length < 40 || length % 17 == 0 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(CRC32C.checksum(slice) == CRC32C.softwareChecksum(slice), "start \(start) length \(length)")
                }
            }
        }
    }

    @Test func tableAgreesWithADictionaryThroughSetsRemovesAndRebuilds() {
        var table = CatalogTable()
        var model: [ExactString: CatalogEntry] = [:]
        var generator = SystemRandomNumberGenerator()
        func entry(_ size: Int) -> CatalogEntry {
            CatalogEntry(
                tier: .records, kind: nil, backend: 0, rule: 0, contentType: CatalogStrings.none, size: Int64(size),
                modified: 0)
        }
        // Keys that share long prefixes, empty and long keys, and canonically equivalent spellings (two keys).
        let keys =
            (0..<3000).map { "records/person-\($0)" } + [
                "", String(repeating: "k", count: 900), "caf\u{E9}", "cafe\u{301}",
            ]
        for step in 0..<40_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            if Int.random(in: 0..<3, using: &generator) == 0 {
                table.remove(key)
                model[ExactString(key)] = nil
            } else {
                table.set(key, entry(step))
                model[ExactString(key)] = entry(step)
            }
        }
        #expect(table.count == model.count)
        for key in keys { #expect(table[key] == model[ExactString(key)], "\(key)") }
        let listed = table.keys(prefix: "records/person-1").map { ExactString($0) }.sorted()
        let expected = model.keys.filter { $0.string.utf8.starts(with: "records/person-1".utf8) }.sorted()
        #expect(listed == expected)
    }

    /// The key hash reads every byte: at every length up to 40 and at every position, changing one byte (one bit,
    /// high or low) changes the hash, in both halves of it (the index position and the tag kept in the index).
    @Test func keyHashDependsOnEveryByteAtEveryLength() {
        for length in 1...40 {
            let key = (0..<length).map { UInt8(truncatingIfNeeded: 0x41 + $0 * 7) }
            let original = key.withUnsafeBytes { CatalogTable.hash($0) }
            for position in 0..<length {
                for bit in [0, 7] {
                    var changed = key
                    changed[position] ^= 1 << bit
                    let hash = changed.withUnsafeBytes { CatalogTable.hash($0) }
                    #expect(hash & 0xFFFF_FFFF != original & 0xFFFF_FFFF, "length \(length), byte \(position)")
                    #expect(hash >> 32 != original >> 32, "length \(length), byte \(position)")
                }
            }
            // A key and the same key with a zero byte added are two keys with two hashes.
            #expect((key + [0]).withUnsafeBytes { CatalogTable.hash($0) } != original)
        }
    }

    /// A key held by a bridged string (not contiguous UTF-8) finds the entry its native spelling set, and
    /// canonically equivalent spellings stay two keys whatever their storage.
    @Test func bridgedAndNativeSpellingsOfAKeyFindTheSameEntry() {
        var table = CatalogTable()
        let entry = CatalogEntry(
            tier: .defaults, kind: nil, backend: 0, rule: 0, contentType: CatalogStrings.none, size: 3, modified: 0)
        let keys = ["prefs/caf\u{E9}", "prefs/cafe\u{301}", "prefs/a-key-longer-than-sixteen-bytes", "k"]
        for (index, key) in keys.enumerated() {
            var sized = entry
            sized.size = Int64(index)
            table.set(key, sized)
        }
        for (index, key) in keys.enumerated() {
            let bridged = NSString(string: key) as String
            #expect(table[bridged]?.size == Int64(index), "\(key)")
            #expect(table[key]?.size == Int64(index), "\(key)")
        }
        #expect(table.count == keys.count)
    }

    @Test func aLogLargerThanOneReadChunkIsReadWhole() throws {
        // Keys of ~200 bytes: the log is several MiB, so records straddle the 4 MiB read chunks.
        let root = directory.path
        let catalog = try StorageCatalog(root: root)
        let location = StorageLocation(
            key: "", tier: .files, backend: "filesystem", ruleID: "file-to-files", kind: .file,
            contentType: "application/pdf", size: 7, modified: Date(timeIntervalSince1970: 1_000))
        let entry = try catalog.entry(for: location)
        let padding = String(repeating: "p", count: 180)
        var batch: [CatalogRecord] = []
        for index in 0..<40_000 {
            batch.append(.set(key: "files/\(padding)/\(index)", entry: entry))
            if index % 3 == 0 { batch.append(.remove(key: "files/\(padding)/\(index)")) }
        }
        try catalog.append(batch, durable: false)
        let size = try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int ?? 0
        #expect(size > 5 << 20)  // Compacted once on the way, still more than one chunk.

        let reopened = try StorageCatalog(root: root)
        #expect(try reopened.count == 40_000 - 13_334)
        #expect(try reopened.location(of: "files/\(padding)/1")?.contentType == "application/pdf")
        #expect(try reopened.location(of: "files/\(padding)/1")?.modified == Date(timeIntervalSince1970: 1_000))
        #expect(try reopened.location(of: "files/\(padding)/3") == nil)
        #expect(try reopened.tier(of: "files/\(padding)/39998") == .files)
    }

    @Test func anotherInstanceSeesAppendsMovesAndCompaction() throws {
        let root = directory.path
        let writer = try StorageCatalog(root: root)
        let reader = try StorageCatalog(root: root)
        let location = StorageLocation(
            key: "", tier: .defaults, backend: "plist", ruleID: "preference-to-defaults", kind: .preference,
            contentType: nil, size: 3, modified: Date())
        let entry = try writer.entry(for: location)
        try writer.append(
            [.set(key: "theme", entry: entry), .intent(key: "token", from: .defaults, to: .secrets)], durable: true)
        #expect(try reader.tier(of: "theme") == .defaults)
        #expect(try reader.unsettledKeys() == ["token"])
        try writer.append([.settle(key: "token"), .remove(key: "theme")], durable: false)
        #expect(try reader.tier(of: "theme") == nil)
        #expect(try reader.unsettledKeys().isEmpty)
        // Enough churn on one key to make the writer compact the log: the reader follows the new file.
        let churn = [CatalogRecord](repeating: .set(key: "counter", entry: entry), count: 30_000)
        try writer.append(churn, durable: false)
        try writer.append([.set(key: "after", entry: entry)], durable: false)
        let size = try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int ?? 0
        #expect(size < 1 << 20)
        #expect(try reader.count == 2)
        #expect(try reader.tier(of: "after") == .defaults)
    }

    /// A key's stripe is FNV-1a of its exact UTF-8 bytes modulo 64 in every process and every version: a process of
    /// another build that picked another stripe for the same key would not exclude this one.
    @Test func stripesAreTheSameInEveryBuild() {
        let known: [(String, Int)] = [
            ("", 37), ("k", 10), ("theme", 50), ("records/person-1", 57), ("caf\u{E9}", 9), ("cafe\u{301}", 55),
            ("bench-defaults/item-0", 57), (String(repeating: "x", count: 40), 5),
        ]
        for (key, stripe) in known { #expect(CatalogLocks.stripe(of: key) == stripe, "\(key)") }
    }

    /// Only the thread inside `withKeyLock` for a key holds it: not for another key of the same stripe, not for a
    /// canonically equivalent spelling, not on another thread, not once released. Every thread sees the key as being
    /// changed meanwhile, and `withKeyLocks` on the same thread does not wait for the stripe it holds.
    @Test func onlyTheLockingThreadHoldsTheKey() throws {
        let catalog = try StorageCatalog(root: directory.path)
        #expect(CatalogLocks.stripe(of: "key-0") == CatalogLocks.stripe(of: "key-20"))
        try catalog.withKeyLock("key-0") {
            #expect(catalog.isLockedByCurrentThread("key-0"))
            #expect(!catalog.isLockedByCurrentThread("key-20"))
            #expect(try catalog.keyPlacement(of: "key-0").isBeingChanged)
            #expect(try !catalog.keyPlacement(of: "key-20").isBeingChanged)
            let seenElsewhere = Mutex<(held: Bool, changing: Bool)?>(nil)
            let thread = Thread {
                let changing = (try? catalog.keyPlacement(of: "key-0").isBeingChanged) ?? false
                seenElsewhere.withLock { $0 = (catalog.isLockedByCurrentThread("key-0"), changing) }
            }
            thread.start()
            while seenElsewhere.withLock({ $0 }) == nil { usleep(1000) }
            #expect(seenElsewhere.withLock { $0! } == (false, true))
            try catalog.withKeyLock("caf\u{E9}") {
                #expect(catalog.isLockedByCurrentThread("caf\u{E9}") && catalog.isLockedByCurrentThread("key-0"))
                #expect(!catalog.isLockedByCurrentThread("cafe\u{301}"))
            }
            #expect(!catalog.isLockedByCurrentThread("caf\u{E9}"))
            #expect(try catalog.withKeyLocks(["key-20", "caf\u{E9}"]) { catalog.isLockedByCurrentThread("key-0") })
        }
        #expect(!catalog.isLockedByCurrentThread("key-0"))
        #expect(try !catalog.keyPlacement(of: "key-0").isBeingChanged)
        #expect(try catalog.withKeyLockIfFree("key-20") { catalog.isLockedByCurrentThread("key-20") } == true)
        #expect(!catalog.isLockedByCurrentThread("key-20"))
    }
}

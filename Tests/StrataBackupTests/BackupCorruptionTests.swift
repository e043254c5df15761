import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataTestSupport
import Testing

/// Each part of the format, damaged, gives a typed error naming what and where — never a crash, never wrong data.
@Suite("Backup repository damage")
struct BackupCorruptionTests {
    /// A repository with one snapshot of a few files.
    private func damaged() throws -> (BackupFixture, SnapshotSummary, [String: [UInt8]]) {
        let fixture = try BackupFixture()
        let files = (0..<4).map { ("file-\($0)", BackupFixture.bytes(120_000, seed: UInt64(40 + $0))) }
        let summary = try fixture.backUp(files)
        return (fixture, summary, Dictionary(uniqueKeysWithValues: files))
    }

    @Test("a flipped bit inside a blob fails authentication, naming the pack and the blob")
    func flippedBlob() throws {
        let (fixture, summary, _) = try damaged()
        let pack = try fixture.files(in: "data")[0]
        try fixture.flipBit(pack, at: 100)
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.path?.hasSuffix(pack) == true)
        #expect(error?.key?.count == 64)
        #expect(error?.collection == summary.id)
        let report = try fixture.open().check(readData: .all)
        #expect(report.problems.contains { $0.code == .authenticationFailed && $0.path?.hasSuffix(pack) == true })
        #expect(try fixture.open().check().isSound)  // The headers are intact: only reading the data finds it.
    }

    @Test("a flipped bit in a pack's header is found by check, naming the pack")
    func flippedPackHeader() throws {
        let (fixture, _, _) = try damaged()
        let pack = try fixture.files(in: "data")[0]
        try fixture.flipBit(pack, at: -10)
        let report = try fixture.open().check()
        #expect(report.problems.contains { $0.code == .authenticationFailed && $0.path?.hasSuffix(pack) == true })
    }

    @Test("a truncated pack is corrupt, naming the pack")
    func truncatedPack() throws {
        let (fixture, summary, _) = try damaged()
        let pack = try fixture.files(in: "data")[0]
        let full = fixture.path + "/" + pack
        let size = try FileManager.default.attributesOfItem(atPath: full)[.size] as! Int
        truncate(full, off_t(size / 2))
        let report = try fixture.open().check()
        #expect(report.problems.contains { $0.code == .corrupt && $0.path?.hasSuffix(pack) == true })
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .corrupt || error?.code == .authenticationFailed)
    }

    @Test("a pack replaced by a FIFO is refused, naming it, and never waited on")
    func packReplacedByAFIFO() throws {
        let (fixture, summary, _) = try damaged()
        let pack = try fixture.files(in: "data")[0]
        let full = fixture.path + "/" + pack
        #expect(unlink(full) == 0 && mkfifo(full, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: full)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO") }
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .invalidArgument && error?.path == full, "\(String(describing: error))")
        let report = try fixture.open().check(readData: .all)
        #expect(report.problems.contains { $0.path == full }, "\(report.problems)")
    }

    @Test("two packs swapped by name fail authentication")
    func swappedPacks() throws {
        let (fixture, summary, _) = try damaged()
        let packs = try fixture.files(in: "data")
        #expect(packs.count >= 2)
        let a = fixture.path + "/" + packs[0]
        let b = fixture.path + "/" + packs[1]
        try FileManager.default.moveItem(atPath: a, toPath: a + ".x")
        try FileManager.default.moveItem(atPath: b, toPath: a)
        try FileManager.default.moveItem(atPath: a + ".x", toPath: b)
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .authenticationFailed || error?.code == .corrupt)
        #expect(error?.path != nil)
        let report = try fixture.open().check()
        #expect(report.problems.count >= 2)
    }

    @Test("a missing pack is corrupt, naming the pack")
    func missingPack() throws {
        let (fixture, summary, _) = try damaged()
        let pack = try fixture.files(in: "data")[0]
        try FileManager.default.removeItem(atPath: fixture.path + "/" + pack)
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .corrupt)
        #expect(error?.path?.hasSuffix(pack) == true)
        #expect(try fixture.open().check().problems.contains { $0.path?.hasSuffix(pack) == true })
    }

    @Test("a chunk no index lists is corrupt, naming the blob and the snapshot; prune lists the packs again")
    func missingChunk() throws {
        let (fixture, summary, files) = try damaged()
        for index in try fixture.files(in: "index") {
            try FileManager.default.removeItem(atPath: fixture.path + "/" + index)
        }
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .corrupt)
        #expect(error?.key?.count == 64)
        #expect(error?.collection == summary.id)
        let report = try fixture.open().check()
        #expect(report.problems.contains { $0.code == .corrupt && $0.collection == summary.id })
        #expect(report.unindexedPacks == (try fixture.files(in: "data").count))
        // Prune reads the packs no index lists from their own headers: it deletes none a snapshot needs, and lists
        // them in its new index.
        let pruned = try fixture.open().prune()
        #expect(pruned.packsDeleted == 0 && pruned.missingBlobs == 0)
        #expect(try fixture.restore(summary.id) == files)
        #expect(try fixture.open().check(readData: .all).isSound)
    }

    @Test("a chunk whose pack is gone is counted by prune, which deletes nothing the snapshot could still need")
    func missingPackAndIndex() throws {
        let (fixture, _, _) = try damaged()
        for index in try fixture.files(in: "index") {
            try FileManager.default.removeItem(atPath: fixture.path + "/" + index)
        }
        let packs = try fixture.files(in: "data")
        try FileManager.default.removeItem(atPath: fixture.path + "/" + packs[0])
        let pruned = try fixture.open().prune()
        #expect(pruned.missingBlobs > 0 && pruned.packsDeleted == 0)
        #expect(try fixture.files(in: "data") == Array(packs.dropFirst()))
    }

    @Test("a flipped bit in an index file: its blobs are missing, naming it, until the index is rebuilt")
    func flippedIndex() throws {
        let (fixture, summary, files) = try damaged()
        let index = try fixture.files(in: "index")[0]
        try fixture.flipBit(index, at: -3)
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .corrupt)
        #expect(error?.path?.hasSuffix(index) == true)
        #expect(error?.recovery?.contains("check --repair") == true)
        let problem = try #require(try fixture.open().check().problems.first { $0.path?.hasSuffix(index) == true })
        #expect(problem.code == .authenticationFailed)
        let rebuilt = try fixture.open().rebuildIndex()
        #expect(rebuilt.damaged.map(\.name) == [String(index.dropFirst("index/".count))])
        #expect(try fixture.restore(summary.id) == files)
        #expect(try fixture.open().check(readData: .all).isSound)
    }

    @Test("a flipped bit in a snapshot fails authentication, naming the snapshot")
    func flippedSnapshot() throws {
        let (fixture, summary, _) = try damaged()
        try fixture.flipBit("snapshots/" + summary.id, at: 40)
        let error = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.collection == summary.id)
        #expect(error?.path?.hasSuffix(summary.id) == true)
    }

    @Test("a flipped bit in a key slot is corrupt, not a wrong passphrase")
    func flippedKeySlot() throws {
        let (fixture, _, _) = try damaged()
        let slot = try fixture.files(in: "keys")[0]
        try fixture.flipBit(slot, at: 30)
        let error = #expect(throws: StorageError.self) { try fixture.open() }
        #expect(error?.code == .corrupt)
        #expect(error?.path?.hasSuffix(slot) == true)
    }

    @Test("a flipped bit in the configuration fails authentication, naming it")
    func flippedConfiguration() throws {
        let (fixture, _, _) = try damaged()
        try fixture.flipBit("config", at: -5)
        let error = #expect(throws: StorageError.self) { try fixture.open() }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.path?.hasSuffix("config") == true)
    }

    @Test("an unknown format version is reported as such, for the repository and for a snapshot")
    func unknownVersion() throws {
        let (fixture, summary, _) = try damaged()
        try fixture.flipBit("snapshots/" + summary.id, at: 4)
        let snapshot = #expect(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(snapshot?.code == .unsupportedVersion)
        try fixture.flipBit("config", at: 4)
        let repository = #expect(throws: StorageError.self) { try fixture.open() }
        #expect(repository?.code == .unsupportedVersion)
        // Even with a wrong passphrase, the version is what is reported.
        let wrong = #expect(throws: StorageError.self) {
            try BackupRepository.open(at: fixture.path, key: .passphrase("nope", cost: .minimumForTests))
        }
        #expect(wrong?.code == .unsupportedVersion)
    }

    @Test("a sound repository checks clean, reading all data or a share of it")
    func soundCheck() throws {
        let (fixture, _, _) = try damaged()
        let all = try fixture.open().check(readData: .all)
        #expect(all.isSound)
        #expect(all.blobsRead > 10)
        #expect(all.snapshots == 1)
        let some = try fixture.open().check(readData: .fraction(0.3))
        #expect(some.isSound)
        #expect(some.blobsRead > 0 && some.blobsRead < all.blobsRead)
    }
}

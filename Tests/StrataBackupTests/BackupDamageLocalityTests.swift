import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataBackup

/// One damaged metadata file blocks nothing but what it holds (issue 33, item 5): reads go through the intact index
/// files, listings name the damaged snapshot files and go on, backup, forget and prune go on around them and say so,
/// and rebuilding the index from the packs repairs a damaged index file.
@Suite("Backup repository: damage stays local")
struct BackupDamageLocalityTests {
    /// Three snapshots, each with a file of its own (so each index file lists blobs only its snapshot needs) and one
    /// shared file; the snapshots' ids, contents and index files in order.
    private func threeSnapshots() throws -> (BackupFixture, [SnapshotSummary], [[String: [UInt8]]], [String]) {
        let fixture = try BackupFixture()
        let shared = BackupFixture.bytes(90_000, seed: 7)
        var summaries: [SnapshotSummary] = []
        var contents: [[String: [UInt8]]] = []
        var indexes: [String] = []
        for round in 0..<3 {
            let files = [("shared", shared), ("own-\(round)", BackupFixture.bytes(150_000, seed: UInt64(70 + round)))]
            let before = Set(try fixture.files(in: "index"))
            summaries.append(try fixture.backUp(files, time: Int64(round)))
            contents.append(Dictionary(uniqueKeysWithValues: files))
            indexes.append(try #require(Set(try fixture.files(in: "index")).subtracting(before).first))
        }
        return (fixture, summaries, contents, indexes)
    }

    @Test("a damaged index file of a later backup: the first snapshot restores, backup and prune go on, saying so")
    func damagedLaterIndex() throws {
        let (fixture, summaries, contents, indexes) = try threeSnapshots()
        try fixture.flipBit(indexes[2], at: 60)
        let damagedName = String(indexes[2].dropFirst("index/".count))
        // Restore of snapshot 1: every blob it needs is in an intact index file.
        #expect(try fixture.restore(summaries[0].id) == contents[0])
        // The third needs blobs only the damaged file lists: missing, naming it and the repair.
        let missing = try #require(throws: StorageError.self) { try fixture.restore(summaries[2].id) }
        #expect(missing.code == .corrupt && missing.path?.hasSuffix(indexes[2]) == true, "\(missing)")
        #expect(missing.recovery?.contains("check --repair") == true)
        // A backup goes on (storing again what only the damaged file lists), and names the file.
        let writer = try fixture.open().beginSnapshot()
        let fresh = BackupFixture.bytes(60_000, seed: 99)
        try writer.add(BackupFixture.captured("fresh", size: fresh.count), contents: fresh)
        let fourth = try writer.commit()
        #expect(writer.damaged.map(\.name) == [damagedName])
        #expect(writer.damaged.first?.error.code == .authenticationFailed)
        #expect(try fixture.restore(fourth.id) == ["fresh": fresh])
        // Prune goes on: the packs only the damaged file lists are read from their own headers and kept.
        let pruned = try fixture.open().prune()
        #expect(pruned.damaged.map(\.name) == [damagedName])
        #expect(pruned.packsDeleted == 0 && pruned.missingBlobs == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.path + "/" + indexes[2]))
        for (summary, files) in zip(summaries, contents) { #expect(try fixture.restore(summary.id) == files) }
        // Until the index is rebuilt, check names the damaged file.
        let problems = try fixture.open().check().problems
        #expect(problems.count == 1 && problems.first?.path?.hasSuffix(indexes[2]) == true, "\(problems)")
    }

    @Test("rebuilding the index from the packs repairs a damaged index file: check is clean, every snapshot restores")
    func rebuildRepairs() throws {
        let (fixture, summaries, contents, indexes) = try threeSnapshots()
        try fixture.flipBit(indexes[1], at: -2)
        let repository = try fixture.open()
        #expect(!(try repository.check().isSound))
        let rebuilt = try repository.rebuildIndex()
        #expect(rebuilt.damaged.map(\.name) == [String(indexes[1].dropFirst("index/".count))])
        #expect(rebuilt.indexFilesReplaced == 3)
        #expect(rebuilt.packs == (try fixture.files(in: "data").count))
        #expect(rebuilt.unreadablePacks.isEmpty && rebuilt.foreign.isEmpty)
        #expect(try fixture.files(in: "index").count == 1)
        let report = try repository.check(readData: .all)
        #expect(report.isSound && report.unindexedPacks == 0, "\(report.problems)")
        for (summary, files) in zip(summaries, contents) { #expect(try fixture.restore(summary.id) == files) }
        // A second rebuild of a sound repository changes nothing but the index file's name.
        let again = try repository.rebuildIndex()
        #expect(again.damaged.isEmpty && again.packs == rebuilt.packs && again.blobs == rebuilt.blobs)
    }

    @Test("a rebuild keeps what an intact index lists of a pack whose own header is damaged, and names the pack")
    func rebuildWithADamagedPackHeader() throws {
        let (fixture, summaries, contents, _) = try threeSnapshots()
        let pack = try #require(try fixture.files(in: "data").first)
        try fixture.flipBit(pack, at: -10)
        let rebuilt = try fixture.open().rebuildIndex()
        #expect(rebuilt.unreadablePacks.map(\.path) == [fixture.path + "/" + pack])
        for (summary, files) in zip(summaries, contents) { #expect(try fixture.restore(summary.id) == files) }
    }

    @Test("a damaged snapshot file: snapshots lists the others and names it; backup, forget and prune go on")
    func damagedSnapshot() throws {
        let (fixture, summaries, contents, _) = try threeSnapshots()
        try fixture.flipBit("snapshots/" + summaries[2].id, at: 50)
        let repository = try fixture.open()
        let listed = try repository.snapshots()
        #expect(listed.map(\.id) == [summaries[0].id, summaries[1].id])
        #expect(listed.damaged.map(\.name) == [summaries[2].id])
        #expect(listed.damaged.first?.kind == .snapshot && listed.damaged.first?.error.code == .authenticationFailed)
        #expect(listed.damaged.first?.error.collection == summaries[2].id)
        #expect(listed.damaged.first?.description.contains(summaries[2].id) == true)
        // A backup goes on: its parent is the latest snapshot that reads.
        let writer = try repository.beginSnapshot()
        for (name, content) in contents[1] {
            try writer.add(BackupFixture.captured(name, size: content.count, time: 1), contents: content)
        }
        let fourth = try writer.commit()
        #expect(fourth.parent == summaries[1].id && fourth.reusedFiles == 2)
        #expect(writer.damaged.map(\.name) == [summaries[2].id])
        // Forget goes on, leaving the damaged file as it is.
        let forgotten = try repository.forget(RetentionPolicy(keepLast: 1))
        #expect(forgotten.kept.map(\.id) == [fourth.id])
        #expect(forgotten.forgotten.map(\.id) == [summaries[0].id, summaries[1].id])
        #expect(forgotten.damaged.map(\.name) == [summaries[2].id])
        #expect(FileManager.default.fileExists(atPath: fixture.path + "/snapshots/" + summaries[2].id))
        // Prune goes on, but removes nothing the damaged snapshot could need.
        let before = try fixture.files(in: "data")
        let pruned = try repository.prune()
        #expect(pruned.damaged.map(\.name) == [summaries[2].id])
        #expect(pruned.blobsRemoved == 0 && pruned.packsDeleted == 0)
        #expect(try fixture.files(in: "data") == before)
        // Forgotten by its id, it no longer holds anything back.
        #expect(try repository.forget(ids: [String(summaries[2].id.prefix(10))]) == [summaries[2].id])
        #expect(try repository.snapshots().damaged.isEmpty)
        #expect(try repository.prune().blobsRemoved > 0)
        #expect(try fixture.restore(fourth.id) == contents[1])
        #expect(try repository.check(readData: .all).isSound)
    }

    @Test("a snapshot file of another repository, and files that are not snapshots, are named and left alone")
    func foreignSnapshotFiles() throws {
        let (fixture, summaries, contents, _) = try threeSnapshots()
        let other = try BackupFixture()
        let stranger = try other.backUp([("x", [1, 2, 3])])
        let copied = BackupRepository.randomName()
        try FileManager.default.copyItem(
            atPath: other.path + "/snapshots/" + stranger.id, toPath: fixture.path + "/snapshots/" + copied)
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: fixture.path + "/snapshots/README"))
        try FileManager.default.createDirectory(
            atPath: fixture.path + "/snapshots/old", withIntermediateDirectories: false)
        let repository = try fixture.open()
        let listed = try repository.snapshots()
        #expect(listed.map(\.id) == summaries.map(\.id))
        #expect(listed.damaged.map(\.name) == [copied])
        #expect(listed.damaged.first?.error.code == .authenticationFailed)
        #expect(Set(listed.foreign) == [fixture.path + "/snapshots/README", fixture.path + "/snapshots/old"])
        let report = try repository.check()
        #expect(report.problems.map(\.path) == [fixture.path + "/snapshots/" + copied])
        #expect(Set(report.foreign) == Set(listed.foreign))
        _ = try repository.forget(ids: [copied])
        _ = try repository.prune()
        #expect(FileManager.default.fileExists(atPath: fixture.path + "/snapshots/README"))
        #expect(try repository.check().isSound)
        #expect(try fixture.restore(summaries[2].id) == contents[2])
    }

    @Test("forgetting by id refuses an unknown or empty id before deleting anything")
    func forgetByIDRefusesBeforeDeleting() throws {
        let (fixture, summaries, _, _) = try threeSnapshots()
        let repository = try fixture.open()
        let error = try #require(throws: StorageError.self) {
            try repository.forget(ids: [summaries[0].id, "nosuch"])
        }
        #expect(error.code == .notFound && error.key == "nosuch")
        #expect(try repository.snapshots().count == 3)
        let empty = try #require(throws: StorageError.self) { try repository.forget(ids: [""]) }
        #expect(empty.code == .notFound)
    }
}

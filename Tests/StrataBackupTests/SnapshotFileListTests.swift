import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// The file list of a snapshot: what a second backup of an unchanged store reads (its parent's list) and writes (its
/// own). Its cost must stay a small share of the first backup's, so it is binary (format 2): no JSON to decode, no hex
/// or base64 to convert, and the parent is found by reading only the other snapshots' headers.
@Suite("Backup: the snapshot's file list")
struct SnapshotFileListTests {
    /// `count` small files of one chunk each, under paths like a store's.
    private func smallFiles(_ count: Int) -> [(String, [UInt8])] {
        (0..<count).map { ("secrets/main/\($0).item", BackupFixture.bytes(300, seed: UInt64($0))) }
    }

    @Test("a snapshot of many small files takes under 80 bytes a file (JSON with hex ids took over 200)")
    func compactFileList() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp(smallFiles(2_000), metadata: ["catalog": "{}"])
        let size = try FileManager.default.attributesOfItem(atPath: fixture.path + "/snapshots/" + summary.id)[.size]
        let perFile = try #require(size as? Int) / 2_000
        #expect(perFile < 80)
        let restored = try fixture.restore(summary.id)
        #expect(restored.count == 2_000)
        #expect(restored["secrets/main/1999.item"] == BackupFixture.bytes(300, seed: 1_999))
    }

    @Test("an unchanged backup reuses every file whatever the order it is captured in, and a path listed twice")
    func reuseInAnyOrder() throws {
        let fixture = try BackupFixture()
        var files = smallFiles(300)
        files.append(files[7])
        try fixture.backUp(files)
        files.reverse()
        files.swapAt(3, 200)
        let second = try fixture.backUp(files)
        #expect(second.reusedFiles == files.count)
        #expect(second.addedBytes == 0)
        let restored = try fixture.restore(second.id)
        #expect(restored.count == 300)
        for (name, content) in files { #expect(restored[name] == content) }
    }

    @Test("the parent is the latest snapshot of this host, among many snapshots of several hosts")
    func latestOfHost() throws {
        let fixture = try BackupFixture()
        let files = smallFiles(50)
        var latest: SnapshotSummary?
        for round in 0..<6 {
            let writer = try fixture.open().beginSnapshot(host: round % 2 == 0 ? "a" : "b")
            for (name, content) in files {
                try writer.add(
                    BackupFixture.captured(name, size: content.count, time: 1_700_000_000), contents: content)
            }
            let summary = try writer.commit()
            if round % 2 == 0 { latest = summary }
        }
        let writer = try fixture.open().beginSnapshot(host: "a")
        try writer.add(BackupFixture.captured(files[0].0, size: files[0].1.count), contents: files[0].1)
        let summary = try writer.commit()
        #expect(summary.parent == latest?.id)
        #expect(summary.reusedFiles == 1)
    }

    @Test("an unchanged backup reads no index file; one that stores a chunk reads them, and names a damaged one")
    func unchangedBackupReadsNoIndex() throws {
        let fixture = try BackupFixture()
        let files = smallFiles(100)
        try fixture.backUp(files)
        let index = try #require(try fixture.files(in: "index").first)
        try fixture.flipBit(index, at: -3)
        let second = try fixture.backUp(files)
        #expect(second.reusedFiles == 100)
        #expect(second.addedBytes == 0)
        // A backup that stores a chunk reads the index: it goes on without the damaged file, and names it.
        let writer = try fixture.open().beginSnapshot()
        for (name, content) in files + [("secrets/main/new.item", BackupFixture.bytes(300, seed: 999))] {
            try writer.add(BackupFixture.captured(name, size: content.count), contents: content)
        }
        _ = try writer.commit()
        let damaged = try #require(writer.damaged.first)
        #expect(writer.damaged.count == 1 && damaged.kind == .index)
        #expect(damaged.error.code == .authenticationFailed)
        #expect(damaged.error.path?.hasSuffix(index) == true)
        #expect(try fixture.open().check().problems.contains { $0.path?.hasSuffix(index) == true })
    }
}

import StrataBackup
import StrataCore
import Testing

/// A capture copies a changed file twice — ahead of its instant and at it — and withdraws the first copy in its own
/// description, so a snapshot may list a path twice. (The repository refused such snapshots as corrupt after the
/// two halves of the backup were joined: `backupWhileFourProcessesWrite` failed in CI.)
@Suite("Backup: a path listed twice in a snapshot")
struct SnapshotRepeatedPathTests {
    @Test func bothCopiesAreKeptAndEachIsServedByItsDescription() throws {
        let fixture = try BackupFixture()
        let early = BackupFixture.bytes(4_000, seed: 1)
        let late = BackupFixture.bytes(5_000, seed: 2)
        let writer = try fixture.open().beginSnapshot()
        let earlyFile = BackupFixture.captured("files/a", size: early.count, time: 1_700_000_000)
        let lateFile = BackupFixture.captured("files/a", size: late.count, time: 1_700_000_100)
        try writer.add(earlyFile, contents: early)
        try writer.add(lateFile, contents: late)
        let summary = try writer.commit()
        let repository = try fixture.open()
        #expect(try repository.snapshots().map(\.id) == [summary.id])
        let reader = try repository.snapshot(summary.id)
        #expect(reader.files == [earlyFile, lateFile])
        #expect(try reader.contents(of: earlyFile) == early)
        #expect(try reader.contents(of: lateFile) == late)
        #expect(try repository.check(readData: .all).problems.isEmpty)
    }

    @Test func twoCopiesDescribedAlikeServeTheLaterOne() throws {
        let fixture = try BackupFixture()
        let first = BackupFixture.bytes(3_000, seed: 3)
        let second = BackupFixture.bytes(3_000, seed: 4)
        let file = BackupFixture.captured("files/b", size: 3_000)
        let writer = try fixture.open().beginSnapshot()
        try writer.add(file, contents: first)
        try writer.add(file, contents: second)
        let summary = try writer.commit()
        #expect(try fixture.open().snapshot(summary.id).contents(of: file) == second)
    }
}

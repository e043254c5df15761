import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataBackup

@Suite("Backup repository maintenance")
struct BackupMaintenanceTests {
    private func summary(_ id: String, _ time: String) -> SnapshotSummary {
        let date = ISO8601DateFormatter().date(from: time)!
        return SnapshotSummary(
            id: id, time: date, host: "h", parent: nil, metadata: [:], fileCount: 0, totalSize: 0, reusedFiles: 0,
            addedBlobs: 0, addedBytes: 0)
    }

    @Test("retention keeps the newest N, and the newest of each of the last N days, weeks and months")
    func retention() {
        let all = [
            summary("a", "2026-01-05T10:00:00Z"), summary("b", "2026-02-10T10:00:00Z"),
            summary("c", "2026-03-01T08:00:00Z"), summary("d", "2026-03-01T20:00:00Z"),
            summary("e", "2026-03-02T09:00:00Z"), summary("f", "2026-03-03T09:00:00Z"),
            summary("g", "2026-03-03T23:00:00Z"),
        ]
        #expect(RetentionPolicy(keepLast: 2).kept(all) == ["f", "g"])
        #expect(RetentionPolicy(keepDaily: 3).kept(all) == ["g", "e", "d"])
        // 2026-03-01 is a Sunday: ISO week 9 holds c and d, week 10 holds e, f, g.
        #expect(RetentionPolicy(keepWeekly: 2).kept(all) == ["g", "d"])
        #expect(RetentionPolicy(keepMonthly: 3).kept(all) == ["g", "b", "a"])
        #expect(RetentionPolicy(keepLast: 1, keepMonthly: 2).kept(all) == ["g", "b"])
    }

    @Test("forget removes what the policy does not keep; a dry run removes nothing; an empty policy is refused")
    func forget() throws {
        let fixture = try BackupFixture()
        for round in 0..<4 { try fixture.backUp([("f", BackupFixture.bytes(10_000, seed: UInt64(round)))]) }
        let repository = try fixture.open()
        let dry = try repository.forget(RetentionPolicy(keepLast: 1), dryRun: true)
        #expect(dry.forgotten.count == 3)
        #expect(try repository.snapshots().count == 4)
        let done = try repository.forget(RetentionPolicy(keepLast: 1))
        #expect(done.kept.count == 1)
        #expect(try repository.snapshots().map(\.id) == done.kept.map(\.id))
        let error = #expect(throws: StorageError.self) { try repository.forget(RetentionPolicy()) }
        #expect(error?.code == .invalidArgument)
    }

    @Test("prune frees what forgotten snapshots alone used, rewrites partly used packs, and kept snapshots restore")
    func prune() throws {
        let fixture = try BackupFixture()
        let shared = BackupFixture.bytes(200_000, seed: 100)
        var kept: [String: [UInt8]] = [:]
        for round in 0..<4 {
            let files = [("shared", shared), ("own", BackupFixture.bytes(150_000, seed: UInt64(round)))]
            let summary = try fixture.backUp(files, time: Int64(round))
            if round == 3 { kept = [summary.id: files[1].1] }
        }
        let repository = try fixture.open()
        _ = try repository.forget(RetentionPolicy(keepLast: 1))
        let before = try fixture.files(in: "data").count
        let report = try repository.prune()
        #expect(report.packsDeleted > 0)
        #expect(report.blobsRemoved > 10)
        #expect(report.bytesFreed > 300_000)
        #expect(try fixture.files(in: "data").count < before)
        #expect(try fixture.files(in: "index").count == 1)
        let (id, own) = kept.first!
        let restored = try fixture.restore(id)
        #expect(restored["own"] == own)
        #expect(restored["shared"] == shared)
        #expect(try repository.check(readData: .all).isSound)
        // A second prune finds nothing to do.
        let again = try repository.prune()
        #expect(again.packsDeleted == 0 && again.packsWritten == 0)
    }

    @Test("prune waits for running backups: it takes the lock exclusive, a backup shared")
    func pruneIsExclusive() throws {
        let fixture = try BackupFixture()
        try fixture.backUp([("a", [1, 2, 3])])
        let writer = try fixture.open().beginSnapshot()
        let error = #expect(throws: StorageError.self) { try fixture.open(lockTimeout: .nonBlocking).prune() }
        #expect(error?.code == .lockUnavailable)
        // Another backup may run beside it.
        let other = try fixture.open(lockTimeout: .nonBlocking).beginSnapshot()
        other.abandon()
        writer.abandon()
        // A bounded wait: a child spawned by another test meanwhile can hold a copy of the released descriptor.
        _ = try fixture.open(lockTimeout: .seconds(10)).prune()
    }
}

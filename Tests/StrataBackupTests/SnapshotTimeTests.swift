import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup

/// A snapshot's time (issue 33, item 8): one outside 1970–9999 (not a number, infinite, negative) is damage named
/// like any other, and one in the future is never the parent of later backups nor pushes real snapshots out of a
/// retention policy.
@Suite("Backup repository: snapshot times")
struct SnapshotTimeTests {
    /// Rewrites the snapshot `id` with `change` applied, sealed as the repository's own writer would, without the
    /// writer's own check of the time.
    private func rewrite(
        _ id: String, in fixture: BackupFixture, format1: Bool = false, from original: SnapshotManifest? = nil,
        _ change: (inout SnapshotManifest) -> Void
    ) throws {
        let repository = try fixture.open()
        var manifest = try original ?? SnapshotManifest.read(id, in: repository.snapshotFolder, keys: repository.keys)
        change(&manifest)
        var body = manifest.encoded()
        if format1 {
            let old = SnapshotManifestV1(
                version: 1, time: manifest.time.timeIntervalSince1970, host: manifest.host, parent: manifest.parent,
                metadata: manifest.metadata, files: [], reusedFiles: 0, addedBlobs: 0, addedBytes: 0)
            body = Array(try JSONEncoder().encode(old))
        }
        try Data(SealedFile.seal(body, kind: .snapshot, name: id, key: repository.keys.seal)).write(
            to: URL(fileURLWithPath: repository.snapshotFolder.path(of: id)))
    }

    @Test(
        "a time that is not a number, infinite, before 1970 or past 9999 is damage naming the part",
        arguments: [Double.nan, .infinity, -.infinity, -1, 253_402_300_800, 1e300])
    func outOfRangeTimes(_ seconds: Double) throws {
        let fixture = try BackupFixture()
        let good = try fixture.backUp([("a", [1])])
        let bad = try fixture.backUp([("b", [2])])
        let repository = try fixture.open()
        let original = try SnapshotManifest.read(bad.id, in: repository.snapshotFolder, keys: repository.keys)
        for format1 in [false, true] {
            // JSON cannot hold NaN or infinity: format 1 is tried with the finite ones.
            guard !format1 || seconds.isFinite else { continue }
            try rewrite(bad.id, in: fixture, format1: format1, from: original) {
                $0.time = Date(timeIntervalSince1970: seconds)
            }
            let listed = try fixture.open().snapshots()
            #expect(listed.map(\.id) == [good.id])
            let error = try #require(listed.damaged.first?.error)
            #expect(error.code == .corrupt && error.attribute == "time", "\(error)")
            #expect(error.collection == bad.id)
            let read = try #require(throws: StorageError.self) { _ = try fixture.open().snapshot(bad.id) }
            #expect(read.attribute == "time")
        }
    }

    @Test("the first and last accepted times read back as they were written")
    func boundaryTimes() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("a", [1])])
        for seconds in [0, 253_402_300_799] as [Double] {
            try rewrite(summary.id, in: fixture) { $0.time = Date(timeIntervalSince1970: seconds) }
            #expect(try fixture.open().snapshots().first?.time.timeIntervalSince1970 == seconds)
        }
    }

    @Test("a snapshot dated in the future is never the parent of a later backup")
    func futureSnapshotIsNoParent() throws {
        let fixture = try BackupFixture()
        let files = [("a", BackupFixture.bytes(20_000, seed: 1))]
        let real = try fixture.backUp(files)
        let future = try fixture.backUp(files)
        try rewrite(future.id, in: fixture) { $0.time = Date(timeIntervalSince1970: 4_102_444_800) }  // 2100
        let next = try fixture.backUp(files)
        #expect(next.parent == real.id)
        #expect(next.reusedFiles == 1)
        let after = try fixture.backUp(files)
        #expect(after.parent == next.id)
    }

    @Test("a snapshot dated in the future is kept by forget and pushes no real snapshot out of the policy")
    func futureSnapshotAndRetention() throws {
        let fixture = try BackupFixture()
        let old = try fixture.backUp([("a", [1])])
        let future = try fixture.backUp([("b", [2])])
        try rewrite(future.id, in: fixture) { $0.time = Date(timeIntervalSince1970: 4_102_444_800) }
        let newest = try fixture.backUp([("c", [3])])
        let report = try fixture.open().forget(RetentionPolicy(keepLast: 1))
        #expect(Set(report.kept.map(\.id)) == [future.id, newest.id])
        #expect(report.forgotten.map(\.id) == [old.id])
    }

    @Test("a commit under a clock outside 1970–9999 is refused, writing no snapshot")
    func commitRefusesAnImpossibleTime() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        var manifest = SnapshotManifest(
            time: Date(timeIntervalSince1970: -5), host: "h", parent: nil, metadata: [:], files: [], reusedFiles: 0,
            addedBlobs: 0, addedBytes: 0)
        let name = BackupRepository.randomName()
        let error = try #require(throws: StorageError.self) {
            try manifest.write(as: name, in: repository.snapshotFolder, keys: repository.keys)
        }
        #expect(error.code == .invalidArgument)
        manifest.time = Date(timeIntervalSince1970: .nan)
        #expect(throws: StorageError.self) {
            try manifest.write(as: name, in: repository.snapshotFolder, keys: repository.keys)
        }
        #expect(try fixture.files(in: "snapshots").isEmpty)
    }
}

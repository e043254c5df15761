import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// Real child processes killed with SIGKILL at each numbered write step of a backup and of a prune
/// (`STRATA_BACKUP_KILL_AT`): the repository stays usable and no kept snapshot loses a chunk.
@Suite("Backup repository crash safety")
struct BackupCrashTests {
    private static let child = "strata-test-child"

    private func runChild(_ arguments: [String], killAt point: Int? = nil) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: Self.child), arguments,
            environment: ["STRATA_BACKUP_KILL_AT": point.map(String.init) ?? "0"])
    }

    /// The number of kill points a run passed, from its last line.
    private func points(_ result: ChildProcess.Result) -> Int {
        Int(result.standardOutput.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
            ?? 0
    }

    private func copy(_ fixture: BackupFixture, to name: String) throws -> String {
        let target = fixture.directory.appending(name)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: target)
        return target
    }

    private func restore(_ path: String, _ id: String) throws -> [String: [UInt8]] {
        let reader = try BackupRepository.open(at: path, key: BackupFixture.key).snapshot(id)
        var out: [String: [UInt8]] = [:]
        for file in reader.files { out[file.path] = try reader.contents(of: file) }
        return out
    }

    @Test("SIGKILL at each of 50 points of a prune never loses a chunk a kept snapshot needs")
    func killedPrune() throws {
        let fixture = try BackupFixture()
        let shared = BackupFixture.bytes(150_000, seed: 500)
        var expected: [String: [String: [UInt8]]] = [:]
        for round in 0..<22 {
            let files = [("shared", shared), ("own", BackupFixture.bytes(260_000, seed: UInt64(round)))]
            let summary = try fixture.backUp(files, time: Int64(round))
            expected[summary.id] = Dictionary(uniqueKeysWithValues: files)
        }
        let forgotten = try fixture.open().forget(RetentionPolicy(keepLast: 4)).forgotten
        for snapshot in forgotten { expected[snapshot.id] = nil }
        // An uninterrupted prune of a copy passes more than 50 points.
        let whole = try runChild(["backup-prune", try copy(fixture, to: "whole"), BackupFixture.passphrase])
        #expect(whole.status == 0, "\(whole.standardError)")
        #expect(points(whole) > 50)
        for point in 1...50 {
            let path = try copy(fixture, to: "killed")
            let result = try runChild(["backup-prune", path, BackupFixture.passphrase], killAt: point)
            #expect(result.wasSignalled && result.status == SIGKILL, "point \(point): \(result.standardError)")
            for (id, files) in expected {
                #expect(try restore(path, id) == files, "point \(point), snapshot \(id)")
            }
            let repository = try BackupRepository.open(at: path, key: BackupFixture.key)
            #expect(try repository.check(readData: .all).isSound, "point \(point)")
            // The next prune finishes the work.
            _ = try repository.prune()
            for (id, files) in expected { #expect(try restore(path, id) == files, "point \(point) after prune") }
            let after = try repository.check(readData: .all)
            #expect(after.isSound && after.unindexedPacks == 0, "point \(point) after prune")
        }
    }

    @Test("SIGKILL at write points spread over a backup leaves a repository whose next backup, check and prune succeed")
    func killedBackup() throws {
        let fixture = try BackupFixture()
        let earlier = [("old", BackupFixture.bytes(100_000, seed: 900))]
        let first = try fixture.backUp(earlier)
        let folder = fixture.directory.appending("tree")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var tree: [String: [UInt8]] = [:]
        for index in 0..<8 {
            let content = BackupFixture.bytes(90_000, seed: UInt64(1000 + index))
            tree["file-\(index)"] = content
            try Data(content).write(to: URL(fileURLWithPath: folder + "/file-\(index)"))
        }
        let whole = try runChild(["backup-folder", try copy(fixture, to: "whole"), BackupFixture.passphrase, folder])
        #expect(whole.status == 0, "\(whole.standardError)")
        let total = points(whole)
        try #require(total >= 10)
        // Every blob added is a point too: 20 spread over the run, and the last four (the last pack, the index and
        // the snapshot written), keep the test short. BackupAcceptanceTests kills `strata backup` at 100 points.
        let chosen = Set((0..<20).map { 1 + $0 * (total - 1) / 19 } + ((max(1, total - 3))...total))
        for point in chosen.sorted() {
            let path = try copy(fixture, to: "killed")
            let killed = try runChild(["backup-folder", path, BackupFixture.passphrase, folder], killAt: point)
            #expect(killed.wasSignalled, "point \(point)")
            let repository = try BackupRepository.open(at: path, key: BackupFixture.key)
            #expect(try repository.check(readData: .all).isSound, "point \(point)")
            #expect(try restore(path, first.id) == Dictionary(uniqueKeysWithValues: earlier))
            let again = try runChild(["backup-folder", path, BackupFixture.passphrase, folder])
            #expect(again.status == 0, "point \(point): \(again.standardError)")
            let id = String(again.standardOutput.split(separator: " ")[1])
            #expect(try restore(path, id) == tree, "point \(point)")
            _ = try repository.prune()
            let after = try repository.check(readData: .all)
            #expect(after.isSound && after.unindexedPacks == 0, "point \(point)")
        }
    }
}

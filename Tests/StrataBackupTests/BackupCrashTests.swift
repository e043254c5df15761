import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// Real child processes killed with SIGKILL before system calls that change the repository (its writes, flushes,
/// renames, links and unlinks, through `STRATA_FAULT_KILL`), spread over a backup and a prune: the repository stays
/// usable and no kept snapshot loses a chunk.
@Suite("Backup repository crash safety")
struct BackupCrashTests {
    private static let child = "strata-test-child"

    private func runChild(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(try TestExecutables.url(named: Self.child), arguments, environment: environment)
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

    @Test("SIGKILL at 50 system calls spread over a prune never loses a chunk a kept snapshot needs")
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
        // An uninterrupted prune of a copy counts the calls: the blobs copied, the new pack and index written and
        // named, the old index files and packs unlinked, each folder flushed.
        let wholePath = try copy(fixture, to: "whole")
        let whole = try runChild(
            ["backup-prune", wholePath, BackupFixture.passphrase],
            environment: FaultKill(on: wholePath).environment(at: 0))
        #expect(whole.status == 0, "\(whole.standardError)")
        let total = try #require(FaultKill.matchedCalls(in: whole.standardError))
        #expect(total > 50)
        let kill = FaultKill(on: fixture.directory.appending("killed"))
        for point in FaultKill.spread(50, over: total) {
            let path = try copy(fixture, to: "killed")
            let result = try runChild(
                ["backup-prune", path, BackupFixture.passphrase], environment: kill.environment(at: point))
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

    @Test(
        "SIGKILL at system calls spread over a backup leaves a repository whose next backup, check and prune succeed")
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
        let wholePath = try copy(fixture, to: "whole")
        let whole = try runChild(
            ["backup-folder", wholePath, BackupFixture.passphrase, folder],
            environment: FaultKill(on: wholePath).environment(at: 0))
        #expect(whole.status == 0, "\(whole.standardError)")
        let total = try #require(FaultKill.matchedCalls(in: whole.standardError))
        try #require(total >= 10)
        // Every write to a pack is a call too: 20 spread over the run, and the last eight (the last pack flushed and
        // named, the index and the snapshot written, flushed and named), keep the test short. BackupAcceptanceTests
        // kills `strata backup` at 100 calls.
        let kill = FaultKill(on: fixture.directory.appending("killed"))
        for point in Set(FaultKill.spread(20, over: total) + (max(1, total - 7)...total)).sorted() {
            let path = try copy(fixture, to: "killed")
            let killed = try runChild(
                ["backup-folder", path, BackupFixture.passphrase, folder], environment: kill.environment(at: point))
            #expect(killed.wasSignalled, "point \(point)")
            let repository = try BackupRepository.open(at: path, key: BackupFixture.key)
            #expect(try repository.check(readData: .all).isSound, "point \(point)")
            #expect(try restore(path, first.id) == Dictionary(uniqueKeysWithValues: earlier))
            let again = try runChild(["backup-folder", path, BackupFixture.passphrase, folder])
            #expect(again.status == 0, "point \(point): \(again.standardError)")
            let id = String(again.standardOutput.split(separator: " ")[1]).trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(try restore(path, id) == tree, "point \(point)")
            _ = try repository.prune()
            let after = try repository.check(readData: .all)
            #expect(after.isSound && after.unindexedPacks == 0, "point \(point)")
        }
    }
}

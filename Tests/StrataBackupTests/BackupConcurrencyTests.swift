import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// Processes sharing one repository: a backup's packs are safe from a prune in another process until they are
/// indexed, two backups from two processes both land, and a forget does not disturb a restore reading.
@Suite("Backup repository: processes at once")
struct BackupConcurrencyTests {
    private static let child = "strata-test-child"

    /// A folder of files to back up: `count` files of random content, each larger than a pack.
    private func folder(_ fixture: BackupFixture, _ name: String, count: Int, seed: UInt64) throws -> [String: [UInt8]]
    {
        let path = fixture.directory.appending(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        var files: [String: [UInt8]] = [:]
        for index in 0..<count {
            let content = BackupFixture.bytes(300_000, seed: seed + UInt64(index))
            try Data(content).write(to: URL(fileURLWithPath: path + "/f\(index)"))
            files["f\(index)"] = content
        }
        return files
    }

    private func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(try TestExecutables.url(named: Self.child), arguments)
    }

    private func snapshotID(_ result: ChildProcess.Result) throws -> String {
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("snapshot ") })
        return String(line.split(separator: " ")[1])
    }

    @Test("a prune in another process never deletes the packs a running backup wrote and has not indexed yet")
    func pruneBesideARunningBackup() throws {
        let fixture = try BackupFixture()
        let files = try folder(fixture, "source", count: 3, seed: 10)
        let hold = fixture.directory.appending("go")
        let backup = try start([
            "backup-folder", fixture.path, BackupFixture.passphrase, fixture.directory.appending("source"), hold,
        ])
        try backup.waitForLine(timeout: 120) { $0 == "written" }
        let unindexed = try fixture.files(in: "data")
        #expect(unindexed.count >= 2)
        // This process cannot prune while the backup runs...
        let error = try #require(throws: StorageError.self) { try fixture.open(lockTimeout: .nonBlocking).prune() }
        #expect(error.code == .lockUnavailable)
        // ...and a prune in a third process waits for it, then keeps every pack the backup committed.
        let prune = try start(["backup-prune", fixture.path, BackupFixture.passphrase])
        usleep(300_000)
        for pack in unindexed { #expect(FileManager.default.fileExists(atPath: fixture.path + "/" + pack)) }
        try Data().write(to: URL(fileURLWithPath: hold))
        let backedUp = backup.wait()
        #expect(backedUp.status == 0, "\(backedUp.standardError)")
        let pruned = prune.wait()
        #expect(pruned.status == 0, "\(pruned.standardError)")
        let id = try snapshotID(backedUp)
        #expect(try fixture.restore(id) == files)
        #expect(try fixture.open().check(readData: .all).isSound)
    }

    @Test("two backups from two processes at once both commit, and each restores")
    func twoBackupsAtOnce() throws {
        let fixture = try BackupFixture()
        let first = try folder(fixture, "one", count: 2, seed: 20)
        var second = try folder(fixture, "two", count: 2, seed: 20)  // The same content: deduplicated across both.
        second["f2"] = BackupFixture.bytes(200_000, seed: 99)
        try Data(second["f2"]!).write(to: URL(fileURLWithPath: fixture.directory.appending("two/f2")))
        let hold = fixture.directory.appending("go")
        let children = try ["one", "two"].map {
            try start(["backup-folder", fixture.path, BackupFixture.passphrase, fixture.directory.appending($0), hold])
        }
        for child in children { try child.waitForLine(timeout: 120) { $0 == "written" } }
        try Data().write(to: URL(fileURLWithPath: hold))
        let results = children.map { $0.wait() }
        for result in results { #expect(result.status == 0, "\(result.standardError)") }
        #expect(try fixture.restore(try snapshotID(results[0])) == first)
        #expect(try fixture.restore(try snapshotID(results[1])) == second)
        #expect(try fixture.open().check(readData: .all).isSound)
        _ = try fixture.open().prune()
        #expect(try fixture.restore(try snapshotID(results[1])) == second)
    }

    @Test("forgetting a snapshot while a restore reads it does not disturb the read; prune waits for the reader")
    func forgetWhileRestoring() throws {
        let fixture = try BackupFixture()
        let content = BackupFixture.bytes(500_000, seed: 30)
        let old = try fixture.backUp([("a", content)], time: 1)
        try fixture.backUp([("b", [1, 2, 3])], time: 2)
        let reader = try fixture.open().snapshot(old.id)
        let forgotten = try fixture.open().forget(RetentionPolicy(keepLast: 1))
        #expect(forgotten.forgotten.map(\.id) == [old.id])
        let error = try #require(throws: StorageError.self) { try fixture.open(lockTimeout: .nonBlocking).prune() }
        #expect(error.code == .lockUnavailable)
        #expect(try reader.contents(of: reader.files[0]) == content)
        reader.close()
        #expect(try fixture.open().prune().packsDeleted > 0)
    }
}

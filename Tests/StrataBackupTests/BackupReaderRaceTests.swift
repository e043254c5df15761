import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// Readers that read one structure and then another (the snapshots, then the index; a listing, then each file)
/// while other processes change them (issue 33, item 3): a backup commits its packs, then its index file, then its
/// snapshot; a forget deletes snapshot files; a prune replaces index files and packs under the exclusive lock. A
/// reader must never conclude from two reads made at different moments that something is missing or damaged.
@Suite("Backup repository: readers beside writers in other processes")
struct BackupReaderRaceTests {
    /// What `strata-test-child backup-loop` writes into the file `f` of its N-th snapshot.
    static func round(_ round: Int) -> [UInt8] {
        Array(String(repeating: "round \(round);", count: 500).utf8)
    }

    private func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(try TestExecutables.url(named: "strata-test-child"), arguments)
    }

    @Test("check, snapshots and restores beside backups, forgets and prunes in two other processes find no damage")
    func readersBesideWriters() throws {
        let fixture = try BackupFixture()
        try fixture.backUp([("seed", [1, 2, 3])])
        let backups = try start(["backup-loop", fixture.path, BackupFixture.passphrase, "120"])
        let prunes = try start(["forget-prune-loop", fixture.path, BackupFixture.passphrase, "40"])
        var rounds = 0
        var restored = 0
        while backups.isRunning || prunes.isRunning {
            rounds += 1
            let repository = try fixture.open()
            let report = try repository.check()
            #expect(report.isSound, "round \(rounds): \(report.problems)")
            let listed = try repository.snapshots()
            #expect(listed.damaged.isEmpty, "round \(rounds): \(listed.damaged)")
            guard let latest = listed.last, let written = latest.metadata["round"].flatMap(Int.init) else { continue }
            do {
                #expect(try fixture.restore(latest.id) == ["f": Self.round(written)], "round \(rounds)")
                restored += 1
            } catch let error as StorageError where error.code == .notFound && error.key == latest.id {
                continue  // Forgotten since it was listed: the one absence that is true.
            }
        }
        let backedUp = backups.wait()
        let pruned = prunes.wait()
        #expect(backedUp.status == 0 && backedUp.standardOutput == "backed up 120\n", "\(backedUp.standardError)")
        #expect(pruned.status == 0, "\(pruned.standardError)")
        #expect(rounds > 10 && restored > 0, "\(rounds) rounds, \(restored) restores")
        let end = try fixture.open().check(readData: .all)
        #expect(end.isSound, "\(end.problems)")
    }
}

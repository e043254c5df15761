import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// Entries of a repository's folders that it did not write (issue 33, item 13): prune touches only files of its own
/// format, names the others, and goes on each time; check lists them and is not failed by them.
@Suite("Backup repository: entries it did not write")
struct BackupForeignEntryTests {
    @Test("prune leaves a README, a subfolder and a file named like a pack that is none, and runs again cleanly")
    func pruneLeavesForeignEntries() throws {
        let fixture = try BackupFixture()
        let first = try fixture.backUp([("a", BackupFixture.bytes(150_000, seed: 1))], time: 1)
        let second = try fixture.backUp([("b", BackupFixture.bytes(150_000, seed: 2))], time: 2)
        let data = fixture.path + "/data"
        try Data("what this folder is\n".utf8).write(to: URL(fileURLWithPath: data + "/README"))
        try FileManager.default.createDirectory(atPath: data + "/old", withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: data + "/old/pack"))
        let lookalike = data + "/" + String(repeating: "ab", count: 32)
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: lookalike))
        let foreign = Set([data + "/README", data + "/old", lookalike])
        let repository = try fixture.open()
        _ = try repository.forget(RetentionPolicy(keepLast: 1))
        for run in 0..<2 {
            let report = try repository.prune()
            #expect(Set(report.foreign) == foreign, "run \(run)")
            if run == 0 { #expect(report.packsDeleted > 0) }
            for path in foreign { #expect(FileManager.default.fileExists(atPath: path), "run \(run): \(path)") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/old/pack")) == Data("kept".utf8))
        #expect(try fixture.restore(second.id) == ["b": BackupFixture.bytes(150_000, seed: 2)])
        #expect(throws: StorageError.self) { try fixture.restore(first.id) }
        let report = try repository.check(readData: .all)
        #expect(Set(report.foreign) == [data + "/README", data + "/old"])
        // A file named like a pack that does not read as one is damage for check, never deleted.
        #expect(report.problems.map(\.path) == [lookalike])
        try FileManager.default.removeItem(atPath: lookalike)
        #expect(try repository.check().isSound)
    }

    @Test("foreign entries of index/ are not index files: no read, check or rebuild stumbles on them")
    func foreignIndexEntries() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("a", BackupFixture.bytes(50_000, seed: 3))])
        let index = fixture.path + "/index"
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: index + "/README"))
        try FileManager.default.createDirectory(atPath: index + "/sub", withIntermediateDirectories: false)
        let repository = try fixture.open()
        #expect(try fixture.restore(summary.id) == ["a": BackupFixture.bytes(50_000, seed: 3)])
        let report = try repository.check()
        #expect(report.isSound && Set(report.foreign) == [index + "/README", index + "/sub"])
        let rebuilt = try repository.rebuildIndex()
        #expect(Set(rebuilt.foreign) == [index + "/README", index + "/sub"])
        #expect(FileManager.default.fileExists(atPath: index + "/README"))
        _ = try repository.prune()
        #expect(FileManager.default.fileExists(atPath: index + "/sub"))
        #expect(try fixture.restore(summary.id) == ["a": BackupFixture.bytes(50_000, seed: 3)])
    }
}

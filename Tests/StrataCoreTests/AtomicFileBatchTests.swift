import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `AtomicFile.writeAll`: several files of one folder, each replaced atomically, flushed together. Serialized:
/// the fault injector is global to the process (each plan is limited to this test's own folder).
@Suite("AtomicFile: several files at once", .serialized)
struct AtomicFileBatchTests {
    let directory: TemporaryDirectory
    let names = (0..<5).map { "file-\($0)" }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-atomic-batch") }

    func contents() throws -> [String] {
        try names.map { try String(contentsOfFile: directory.appending($0), encoding: .utf8) }
    }

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(AtomicFile.temporaryPrefix)
        }
    }

    @Test func everyFileIsReplaced() throws {
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.writeAll(in: folder, names: names) { Data("old \($0)".utf8) }
        try AtomicFile.writeAll(in: folder, names: names) { Data("new \($0)".utf8) }
        #expect(try contents() == (0..<5).map { "new \($0)" })
        #expect(try leftovers().isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appending("file-0"))[.posixPermissions]
        #expect(mode as? Int == 0o600)
    }

    @Test func aFailureBeforeTheRenamesChangesNothing() throws {
        defer { FaultInjector.shared.reset() }
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.writeAll(in: folder, names: names) { Data("old \($0)".utf8) }
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try AtomicFile.writeAll(in: folder, names: names) { index in
                if index == 3 { throw Refused() }
                return Data("new \(index)".utf8)
            }
        }
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: directory.path)
        let error = #expect(throws: StorageError.self) {
            try AtomicFile.writeAll(in: folder, names: names) { Data("new \($0)".utf8) }
        }
        #expect(error?.errno == EIO)
        #expect(try contents() == (0..<5).map { "old \($0)" })
        #expect(try leftovers().isEmpty)
    }

    /// A few files are flushed at the same time, each by its own `fdatasync` on a thread of its own: the one
    /// whose flush fails is the one the error names (the first in order when several fail), every flush is
    /// waited for, and nothing is renamed.
    @Test func aFailedFlushAmongSeveralAtOnceNamesItsFileAndChangesNothing() throws {
        defer { FaultInjector.shared.reset() }
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.writeAll(in: folder, names: names) { Data("old \($0)".utf8) }
        for failing in [["file-3"], ["file-4", "file-1"]] {
            for name in failing { FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: name) }
            FaultInjector.shared.startCounting(pathContaining: directory.path)
            let error = #expect(throws: StorageError.self) {
                try AtomicFile.writeAll(in: folder, names: names) { Data("new \($0)".utf8) }
            }
            #expect(error?.errno == EIO)
            #expect(error?.path == directory.appending(failing.min()!), "the first failing file in order")
            #expect(FaultInjector.shared.seenCount(of: .fsync) == names.count, "every flush ran, none after")
            #expect(FaultInjector.shared.seenCount(of: .rename) == 0)
            #expect(try contents() == (0..<5).map { "old \($0)" })
            #expect(try leftovers().isEmpty)
        }
    }

    /// More files than are flushed one by one: one `syncfs`, whose failure leaves every file old.
    @Test func aLargeBatchWhoseFlushFailsChangesNothing() throws {
        defer { FaultInjector.shared.reset() }
        let folder = try DirectoryHandle.open(path: directory.path)
        let many = (0..<(AtomicFile.oneByOneFlushLimit + 4)).map { "many-\($0)" }
        try AtomicFile.writeAll(in: folder, names: many) { Data("old \($0)".utf8) }
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        try AtomicFile.writeAll(in: folder, names: many) { Data("new \($0)".utf8) }
        #expect(FaultInjector.shared.seenCount(of: .fsync) == 2, "one syncfs, then the folder")
        #expect(FaultInjector.shared.seenCount(of: .writeback) == 0)
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: directory.path)
        let error = #expect(throws: StorageError.self) {
            try AtomicFile.writeAll(in: folder, names: many) { Data("newer \($0)".utf8) }
        }
        #expect(error?.errno == EIO)
        let contents = try many.map { try String(contentsOfFile: directory.appending($0), encoding: .utf8) }
        #expect(contents == (0..<many.count).map { "new \($0)" })
        #expect(try leftovers().isEmpty)
    }

    /// A few files are handed to the disk together and flushed each before any rename; a file held back (a
    /// manifest) is renamed only after the folder's flush, so a failure of that flush leaves it old while the
    /// others are new, and `beforeFolderSync` runs between.
    @Test func aFileHeldBackIsRenamedOnlyAfterTheFolderIsFlushed() throws {
        defer { FaultInjector.shared.reset() }
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.writeAll(in: folder, names: names) { Data("old \($0)".utf8) }
        FaultInjector.shared.startCounting(pathContaining: directory.path)
        var seenBeforeFolderSync: [String] = []
        try AtomicFile.writeAll(
            in: folder, names: names, renamesLastAfterFolderSync: true,
            beforeFolderSync: { seenBeforeFolderSync = try contents() }
        ) { Data("new \($0)".utf8) }
        #expect(seenBeforeFolderSync == ["new 0", "new 1", "new 2", "new 3", "old 4"])
        #expect(try contents() == (0..<5).map { "new \($0)" })
        #expect(
            FaultInjector.shared.seenCalls.filter { [.writeback, .fsync, .rename].contains($0) }
                == Array(repeating: .writeback, count: 5) + Array(repeating: .fsync, count: 5)
                + Array(repeating: .rename, count: 4) + [.fsync, .rename])
        // The folder's flush fails: the four renamed files are new, the one held back is old.
        FaultInjector.shared.inject(.error(EIO), on: .fsync, pathContaining: directory.path, after: 5)
        let error = #expect(throws: StorageError.self) {
            try AtomicFile.writeAll(in: folder, names: names, renamesLastAfterFolderSync: true) {
                Data("newer \($0)".utf8)
            }
        }
        #expect(error?.errno == EIO)
        #expect(try contents() == ["newer 0", "newer 1", "newer 2", "newer 3", "new 4"])
        #expect(try leftovers().isEmpty)
    }

    @Test func aFailedRenameKeepsTheFilesBeforeItNewAndTheRestOld() throws {
        defer { FaultInjector.shared.reset() }
        let folder = try DirectoryHandle.open(path: directory.path)
        try AtomicFile.writeAll(in: folder, names: names) { Data("old \($0)".utf8) }
        FaultInjector.shared.inject(.error(EIO), on: .rename, pathContaining: directory.path, after: 2)
        let error = #expect(throws: StorageError.self) {
            try AtomicFile.writeAll(in: folder, names: names) { Data("new \($0)".utf8) }
        }
        #expect(error?.errno == EIO)
        #expect(try contents() == ["new 0", "new 1", "old 2", "old 3", "old 4"])
        #expect(try leftovers().isEmpty)
    }
}

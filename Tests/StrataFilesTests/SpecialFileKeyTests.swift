import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A FIFO or a folder where a key's file would be, put there by another program: refused as no regular file, never
/// listed, never waited on (a read of a range, a copy opened a FIFO and waited for a writer).
@Suite("FileStore: a FIFO or a folder at a key's name")
struct SpecialFileKeyTests {
    @Test func aFIFOAtAKeysNameIsNoFileAndIsNeverWaitedOn() throws {
        let directory = try TemporaryDirectory(prefix: "strata-files-fifo")
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("kept".utf8), to: "kept.txt")
        let fifo = directory.appending("root/files/fifo.txt")
        #expect(mkfifo(fifo, 0o600) == 0)
        let watchdog = FIFOWatchdog(path: fifo)
        defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO") }
        let reads: [(String, () throws -> Void)] = [
            ("whole", { _ = try store.readIfPresent("fifo.txt") }),
            ("range", { _ = try store.read("fifo.txt", range: 0..<4) }),
            ("chunks", { _ = try store.read("fifo.txt") { _ in } }),
            ("copy", { try store.copy("fifo.txt", to: "copy.txt") }),
        ]
        for (what, read) in reads {
            let error = #expect(throws: StorageError.self, "\(what)") { try read() }
            #expect(error?.code == .invalidArgument, "\(what): \(String(describing: error))")
            #expect(error?.path == fifo, "\(what)")
        }
        #expect(try store.list() == ["kept.txt"])
        #expect(try store.read("kept.txt") == Data("kept".utf8))
    }

    @Test func aFolderAtAKeysNameIsNoFile() throws {
        let directory = try TemporaryDirectory(prefix: "strata-files-folder-key")
        let store = try FileStore(root: directory.appending("root"))
        try store.write(Data("inner".utf8), to: "folder/inner.txt")
        let error = #expect(throws: StorageError.self) { try store.read("folder", range: 0..<4) }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(throws: StorageError.self) { try store.readIfPresent("folder") }
        #expect(try store.read("folder/inner.txt") == Data("inner".utf8))
    }
}

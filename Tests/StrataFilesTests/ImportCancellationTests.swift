import Foundation
import StrataCore
import StrataFiles
import StrataLocalFiles
import StrataTestSupport
import Synchronization
import Testing

/// An import stopped before its commit (`ImportOptions.isCancelled`) throws `.cancelled` and leaves the store as it
/// was: earlier files unchanged, no new key, no staging left; its progress counts up to the archive's total.
@Suite("Files: imports report progress and stop cleanly")
struct ImportCancellationTests {
    /// A zip of `count` files of 300 KiB each under `in/`, made by our own exporter from a scratch store.
    func archive(_ location: FileStoreLocation, count: Int) throws -> String {
        let scratch = try FileStore(root: location.directory.appending("scratch"))
        for index in 0..<count {
            try scratch.write(Data(repeating: UInt8(index), count: 300 << 10), to: "in/file-\(index).bin")
        }
        let path = location.directory.appending("in.zip")
        try scratch.exportZip(["in"], to: path)
        return path
    }

    /// The store's keys and contents.
    func contents(_ store: FileStore) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for key in try store.list(prefix: "") { out[key] = try store.read(key) }
        return out
    }

    /// Stopped at the first poll, half-way, and at the last poll before the commit.
    @Test(arguments: FileEngineKind.available, [0.0, 0.5, 1.0])
    func aZipImportStoppedMidwayChangesNothing(_ engine: FileEngineKind, at share: Double) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        let path = try archive(location, count: 8)
        // How many times an import polls, counted on an import elsewhere.
        let polls = Mutex(0)
        try store.importZip(
            from: path, into: "count",
            options: ImportOptions(isCancelled: {
                polls.withLock {
                    $0 += 1
                    return false
                }
            }))
        let total = polls.withLock { $0 }
        #expect(total > 8)
        for key in try store.list(prefix: "count") { _ = try store.delete(key) }
        try store.write(Data("kept".utf8), to: "in/file-0.bin")  // One the archive would replace.
        try store.write(Data("other".utf8), to: "other.txt")
        let before = try contents(store)
        let stopAt = max(1, Int((Double(total) * share).rounded()))
        polls.withLock { $0 = 0 }
        let error = #expect(throws: StorageError.self) {
            try store.importZip(
                from: path,
                options: ImportOptions(isCancelled: {
                    polls.withLock {
                        $0 += 1
                        return $0 >= stopAt
                    }
                }))
        }
        #expect(error?.code == .cancelled)
        #expect(error?.path == path)
        #expect(try contents(store) == before)
        #expect(try store.verify(prefix: "").filter { $0.kind != .unrecorded }.isEmpty)
        // The same import, not stopped, then succeeds.
        #expect(try store.importZip(from: path).count == 8)
    }

    @Test(arguments: FileEngineKind.available)
    func aGzipImportStoppedMidwayChangesNothing(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        var generator = SystemRandomNumberGenerator()
        try store.write(Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }), to: "big.bin")
        let gzip = location.directory.appending("big.gz")
        try store.exportGzip("big.bin", to: gzip)
        try store.write(Data("old".utf8), to: "target.bin")
        let polls = Mutex(0)
        let error = #expect(throws: StorageError.self) {
            try store.importGzip(
                from: gzip, to: "target.bin",
                options: ImportOptions(isCancelled: {
                    polls.withLock {
                        $0 += 1; return $0 > 1
                    }
                }))
        }
        #expect(error?.code == .cancelled)
        #expect(try store.read("target.bin") == Data("old".utf8))
    }

    @Test(arguments: FileEngineKind.available)
    func progressCountsUpToTheTotal(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        let path = try archive(location, count: 4)
        let steps = Mutex<[TransferProgress]>([])
        try store.importZip(
            from: path, into: "copy", options: ImportOptions(progress: { step in steps.withLock { $0.append(step) } }))
        let seen = steps.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesDone <= $1.bytesDone })
        #expect(seen.last?.bytesDone == 4 * (300 << 10))
        #expect(seen.allSatisfy { $0.bytesTotal == 4 * (300 << 10) })
        #expect(seen.last?.currentKey == "copy/in/file-3.bin")
    }
}

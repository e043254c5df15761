import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

struct FilesFixture {
    let directory: TemporaryDirectory
    let store: FileStore
    init(configuration: FilesConfiguration = FilesConfiguration()) throws {
        directory = try TemporaryDirectory(prefix: "strata-files")
        store = try FileStore(root: directory.appending("root"), configuration: configuration)
    }
    func outside(_ name: String) -> String { directory.appending(name) }
}

func pseudoRandom(_ count: Int, seed: UInt64) -> Data {
    var state = seed | 1
    var bytes = [UInt8](repeating: 0, count: count)
    var index = 0
    while index < count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        for shift in stride(from: 0, to: 64, by: 8) where index < count {
            bytes[index] = UInt8(truncatingIfNeeded: state >> UInt64(shift))
            index += 1
        }
    }
    return Data(bytes)
}

/// Text-like data that compresses about as well as a PDF's text streams.
func textLike(_ count: Int) -> Data {
    let words = [
        "storage", "strata", "record", "preference", "secret", "file", "lock", "atomic", "export", "zip", "the",
        "of", "and", "report", "page", "table", "chart", "42", "2026", "\n",
    ]
    var out = [UInt8]()
    out.reserveCapacity(count + 16)
    var state: UInt64 = 7
    while out.count < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        out += Array(words[Int(state >> 59) % words.count].utf8)
        out.append(0x20)
    }
    return Data(out.prefix(count))
}

/// PDF-like content, the files benchmark's data: page-description words (text streams, compressible) with a short
/// binary (image) run about one time in sixteen.
func pdfLike(_ count: Int) -> Data {
    let words = [
        "BT", "/F1", "12", "Tf", "72", "712", "Td", "(Quarterly", "report)", "Tj", "ET", "q", "0.5", "0", "0",
        "rg", "re", "f", "Q", "stream", "endstream", "obj", "endobj", "storage", "strata", "revenue", "2026",
    ]
    var out = [UInt8]()
    out.reserveCapacity(count + 64)
    var state: UInt64 = 11
    while out.count < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        if state >> 60 == 0 {
            for _ in 0..<48 {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                out.append(UInt8(truncatingIfNeeded: state >> 33))
            }
        } else {
            out += Array(words[Int(state >> 40) % words.count].utf8)
            out.append(state >> 58 == 1 ? 0x0A : 0x20)
        }
    }
    return Data(out.prefix(count))
}

@Suite("FileStore: files")
struct FileStoreTests {
    @Test(arguments: FileEngineKind.available)
    func writeReadReplaceDelete(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        try store.write(Data("one".utf8), to: "exports/2026/report.txt")
        #expect(try store.read("exports/2026/report.txt") == Data("one".utf8))
        try store.write(Data("two".utf8), to: "exports/2026/report.txt")
        #expect(try store.read("exports/2026/report.txt") == Data("two".utf8))
        #expect(try store.exists("exports/2026/report.txt"))
        #expect(try !store.exists("exports/2026"))  // A folder is not a file.
        let missing = #expect(throws: StorageError.self) { try store.read("nope.txt") }
        #expect(missing?.code == .notFound)
        #expect(missing?.key == "nope.txt")
        #expect(try store.readIfPresent("nope.txt") == nil)
        #expect(try store.delete("exports/2026/report.txt"))
        #expect(try !store.delete("exports/2026/report.txt"))
        if engine == .posix {
            let mode =
                try FileManager.default.attributesOfItem(atPath: location.directory.appending("root/files"))[
                    .posixPermissions] as? Int
            #expect(mode == 0o700)
        }
    }

    @Test func hostilePathsAreRefusedAndNothingEscapes() throws {
        let fixture = try FilesFixture()
        let store = fixture.store
        try FileManager.default.createDirectory(atPath: fixture.outside("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: store.directory + "/link", withDestinationPath: fixture.outside("elsewhere"))
        for key in [
            "../escape.txt", "/etc/passwd", "a/../../b", "nul\0.txt", "link/inside.txt", ".strata-locks/x", "a\\b",
        ] {
            let error = #expect(throws: StorageError.self) { try store.write(Data("x".utf8), to: key) }
            #expect(error?.code == .invalidKey || error?.code == .symbolicLink, "\(key): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.outside("elsewhere")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending("root/escape.txt")))
        #expect(try store.list().isEmpty, "links are neither listed nor followed")
    }

    @Test(arguments: FileEngineKind.available)
    func streamingKeepsMemoryFlatAndCountsRight(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        let source = location.directory.appending("big.bin")
        try pseudoRandom(5 << 20, seed: 9).write(to: URL(fileURLWithPath: source))
        try store.write(to: "big.bin", from: FileHandle(forReadingAtPath: source)!)
        var total = 0
        var chunks = 0
        var crc: UInt32 = 0
        try store.read("big.bin") { chunk in
            total += chunk.count
            chunks += 1
            crc = chunk.withUnsafeBytes { LibDeflate.crc32($0, continuing: crc) }
            #expect(chunk.count <= store.configuration.chunkSize)
        }
        #expect(total == 5 << 20)
        #expect(chunks >= 5)
        #expect(try store.metadata("big.bin")?.checksum == crc)
    }

    @Test(arguments: FileEngineKind.available)
    func asyncStreamsInAndOut(_ engine: FileEngineKind) async throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        let parts = (0..<10).map { pseudoRandom(100_000, seed: UInt64($0 + 1)) }
        let stream = AsyncStream<Data> { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish()
        }
        try await store.write(to: "streamed.bin", chunks: stream)
        var collected = Data()
        for try await chunk in store.chunks(of: "streamed.bin") { collected += chunk }
        #expect(collected == parts.reduce(Data(), +))
    }

    @Test(arguments: FileEngineKind.available)
    func appendCopyMoveListAndMetadata(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        try store.append(Data("hello ".utf8), to: "log/app.log")
        try store.append(Data("world".utf8), to: "log/app.log")
        #expect(try store.read("log/app.log") == Data("hello world".utf8))
        #expect(try store.verify(prefix: "log").isEmpty, "append keeps the checksum current")
        try store.copy("log/app.log", to: "log/copy.log")
        try store.move("log/copy.log", to: "archive/old.log")
        #expect(try store.list() == ["archive/old.log", "log/app.log"])
        #expect(try store.list(prefix: "log") == ["log/app.log"])
        #expect(try store.list(prefix: "", recursive: false).isEmpty)
        let pdf = Data("%PDF-1.7\n".utf8) + Data(count: 100)
        try store.write(pdf, to: "docs/unnamed")
        let metadata = try #require(try store.metadata("docs/unnamed"))
        #expect(metadata.size == pdf.count)
        #expect(metadata.contentType == "application/pdf", "sniffed from the magic bytes")
        #expect(try store.metadata("archive/old.log")?.contentType == "application/octet-stream")
        try store.write(Data(), to: "a.wav")
        #expect(try store.metadata("a.wav")?.contentType == "audio/wav")
        #expect(try store.metadata("missing") == nil)
        let move = #expect(throws: StorageError.self) { try store.move("missing", to: "x") }
        #expect(move?.code == .notFound)
    }

    @Test func verifyFindsChangedBytes() throws {
        let fixture = try FilesFixture()
        let store = fixture.store
        try store.write(pseudoRandom(10_000, seed: 3), to: "data/a.bin")
        try store.write(pseudoRandom(10_000, seed: 4), to: "data/b.bin")
        #expect(try store.verify().isEmpty)
        // Flip one byte behind the store's back (in place, keeping the extended attribute).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: try store.path(for: "data/b.bin")))
        try handle.seek(toOffset: 5000)
        handle.write(Data([0xFF]))
        try handle.close()
        _ = FileManager.default.createFile(atPath: try store.path(for: "data/c.bin"), contents: Data("foreign".utf8))
        let problems = try store.verify()
        #expect(problems.map(\.key) == ["data/b.bin", "data/c.bin"])
        #expect(problems.first?.kind == .checksumMismatch)
        #expect(problems.last?.kind == .unrecorded)
    }

    /// On S3 the uses are the engine's record in this process (S3 keeps no access time), merged with the objects'
    /// modification dates: the same order as the POSIX engine's access times within one process.
    @Test(arguments: FileEngineKind.available)
    func cacheAreasEvictOnlyInsideAndReportIt(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open()
        try store.write(pseudoRandom(50_000, seed: 1), to: "keep/important.bin")
        let cache = try store.cacheArea(prefix: "cache/thumbs", byteLimit: 100_000)
        var evicted: [CacheArea.Eviction] = []
        for index in 0..<5 {
            evicted += try cache.put(pseudoRandom(30_000, seed: UInt64(index + 10)), for: "t\(index).png")
            if index == 1 { _ = try cache.get("t0.png") }  // t0 is used: t1 becomes the least recently used.
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try cache.usage().bytes <= 100_000)
        #expect(evicted.allSatisfy { $0.key.hasPrefix("cache/thumbs/") && $0.reason == .overLimit })
        #expect(evicted.first?.key == "cache/thumbs/t1.png")
        #expect(try store.exists("keep/important.bin"), "nothing outside the area is touched")
        let expiring = try store.cacheArea(prefix: "cache/short", byteLimit: 1 << 20, maximumAge: 0.05)
        try expiring.put(Data("x".utf8), for: "old")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(try expiring.get("old") == nil)
        #expect(try !store.exists("cache/short/old"))
    }

    @Test func lockTimeoutNamesThePath() throws {
        let fixture = try FilesFixture()
        let quick = try FileStore(
            root: fixture.directory.appending("root"), configuration: FilesConfiguration(lockTimeout: .seconds(0.1)))
        let held = try quick.lock(for: "busy.txt").acquire(.exclusive)
        defer { held.release() }
        let error = #expect(throws: StorageError.self) { try quick.write(Data("x".utf8), to: "busy.txt") }
        #expect(error?.code == .lockTimeout)
        #expect(error?.key == "busy.txt")
    }
}

@Suite("FileStore: several processes")
struct FileProcessTests {
    /// A fresh store on `engine`, its location (what a child opens it by) and the child executable.
    func setUp(_ engine: FileEngineKind) throws -> (FileStoreLocation, FileStore, URL) {
        let location = try FileStoreLocation(engine)
        return (location, try location.open(), try TestExecutables.url(named: "strata-test-child"))
    }

    /// Cleans up what killed writers left (temporaries, multipart uploads), then checks nothing remains.
    func expectNothingLeftOver(_ store: FileStore) throws {
        _ = try store.removeLeftovers(olderThan: 0)
        #expect(try store.removeLeftovers(olderThan: 0) == 0, "cleanup left something behind")
    }

    @Test(arguments: FileEngineKind.available)
    func readersNeverSeeTornContentWhileAWriterHammers(_ engine: FileEngineKind) throws {
        let (location, _, child) = try setUp(engine)
        let writer = try ChildProcess(child, ["files-writer", location.location, "shared.bin", "200000", "1"])
        defer { writer.kill(); _ = writer.wait() }
        try writer.waitForLine { $0.hasPrefix("wrote") }
        let readers = try (0..<2).map { _ in
            try ChildProcess(child, ["files-reader", location.location, "shared.bin", "200000", "300"])
        }
        for reader in readers {
            let result = reader.wait()
            #expect(result.standardOutput == "done\n", "\(result.standardOutput) \(result.standardError)")
        }
    }

    /// A writer killed with SIGKILL between and in the middle of its writes: the file is the last version it
    /// acknowledged or the next one, whole, with its checksum recorded; on S3 a killed multipart upload stays
    /// invisible and cleanup removes it.
    @Test(arguments: FileEngineKind.available)
    func aWriterKilledMidWriteLeavesOldOrNew(_ engine: FileEngineKind) throws {
        let (location, store, child) = try setUp(engine)
        var next = 1
        let rounds =
            ProcessInfo.processInfo.environment["STRATA_TORTURE_ROUNDS"].flatMap(Int.init).map { $0 / 4 }
            ?? (engine == .posix ? 30 : 12)
        // On S3, a version above the part size (6 MiB) goes up as a multipart upload.
        let size = engine == .posix ? 300_000 : 7 << 20
        for round in 0..<rounds {
            let process = try ChildProcess(
                child, ["files-writer", location.location, "victim.bin", "\(size)", "\(next)"])
            try process.waitForLine(timeout: 120) { $0.hasPrefix("wrote") }
            Thread.sleep(forTimeInterval: Double(round % 11) / (engine == .posix ? 1000 : 50))
            process.kill(SIGKILL)
            _ = process.wait()
            let acknowledged = process.lines.compactMap { $0.hasPrefix("wrote ") ? Int($0.dropFirst(6)) : nil }.max()!
            let data = try store.read("victim.bin")
            let header = String(decoding: data.prefix(while: { $0 != 0x0A }), as: UTF8.self)
            let version = Int(header.dropFirst("version ".count)) ?? -1
            #expect(version == acknowledged || version == acknowledged + 1, "round \(round): \(header)")
            #expect(data.count == header.utf8.count + 1 + size, "round \(round): torn file of \(data.count) bytes")
            #expect(try store.verify(prefix: "victim.bin").isEmpty)
            next = max(version, acknowledged) + 1
        }
        try expectNothingLeftOver(store)
        #expect(try store.list() == ["victim.bin"])
    }

    /// Writers killed before their first write of a fresh key ends: the key has no file, or a whole one.
    @Test(arguments: FileEngineKind.available)
    func aWriterKilledBeforeItsFirstWriteEndsLeavesNoFile(_ engine: FileEngineKind) throws {
        let (location, store, child) = try setUp(engine)
        let size = 7 << 20
        for round in 0..<6 {
            let key = "fresh-\(round).bin"
            let process = try ChildProcess(child, ["files-writer", location.location, key, "\(size)", "1"])
            Thread.sleep(forTimeInterval: 0.3 + Double(round) * 0.15)
            process.kill(SIGKILL)
            _ = process.wait()
            guard let data = try store.readIfPresent(key) else { continue }
            #expect(VersionedContent.version(of: data, size: size) != nil, "round \(round): torn file")
        }
        try expectNothingLeftOver(store)
        // On S3 a writer killed after its multipart upload completed, before it recorded the checksum (a
        // metadata-only self-copy), leaves a whole object whose checksum is `unrecorded`: never a mismatch.
        #expect(try store.verify().filter { $0.kind != .unrecorded }.isEmpty)
    }

    /// Four processes update the same counters, append to one log and write and delete keys of their own at once:
    /// no update or append is lost, and nothing of the deleted keys remains.
    @Test(arguments: FileEngineKind.available)
    func processesUpdatingTheSameKeysLoseNothing(_ engine: FileEngineKind) throws {
        let (location, store, child) = try setUp(engine)
        let rounds = 40
        let processes = try (0..<4).map { _ in
            try ChildProcess(child, ["files-counters", location.location, "\(rounds)"])
        }
        for result in processes.map({ $0.wait() }) {
            #expect(result.standardOutput == "done\n", "\(result.standardOutput) \(result.standardError)")
        }
        let total = try (0..<4).reduce(0) { sum, index in
            sum + (Int(String(decoding: try store.read("hot-\(index)"), as: UTF8.self)) ?? 0)
        }
        #expect(total == 4 * rounds, "lost updates")
        let log = String(decoding: try store.read("log.txt"), as: UTF8.self)
        #expect(Set(log.split(separator: "\n")).count == 4 * rounds, "lost or doubled appends")
        #expect(try store.list(recursive: true) == ["hot-0", "hot-1", "hot-2", "hot-3", "log.txt"])
        #expect(try store.verify().isEmpty)
    }
}

@Suite("FileStore: StorageBackend conformance")
struct FilesConformanceTests {
    @Test(arguments: FileEngineKind.available.flatMap { engine in BackendConformance.checkIDs.map { (engine, $0) } })
    func conformance(_ engine: FileEngineKind, _ check: String) async throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try await BackendConformance.run(check) { store }
    }
}

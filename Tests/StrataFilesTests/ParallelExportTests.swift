import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataFiles

@Suite("FileStore: libdeflate exports across blocks and threads")
struct ParallelExportTests {
    /// A fresh store on `engine`, and its location (for local output files).
    func open(_ engine: FileEngineKind) throws -> (FileStoreLocation, FileStore) {
        let location = try FileStoreLocation(engine)
        return (location, try location.open(configuration: FilesConfiguration(durability: .atomicOnly)))
    }

    /// Text with an incompressible stretch in the middle, so members of both kinds occur.
    func mixed(_ size: Int) -> Data {
        var data = textLike(size / 2)
        data += pseudoRandom(size / 4, seed: 9)
        data += textLike(size - data.count)
        return data
    }

    @Test(arguments: FileEngineKind.available)
    func gzipExportIsOneMemberPerMebibyteCompressedOnWorkers(_ engine: FileEngineKind) throws {
        let (location, store) = try open(engine)
        let content = mixed(5 << 20 + 123)
        try store.write(content, to: "docs/long.pdf")
        let output = location.directory.appending("long.pdf.gz")
        try store.exportGzip("docs/long.pdf", to: output, options: ExportOptions(threads: 4))
        #expect(try tool("/usr/bin/gzip", ["-t", output]).status == 0)
        let check = try python(
            """
            import sys, zlib, gzip, hashlib
            data = open(sys.argv[1], 'rb').read()
            members, out, rest = 0, b'', data
            while rest:
                d = zlib.decompressobj(31)
                out += d.decompress(rest)
                assert d.eof, 'truncated member'
                rest = d.unused_data
                members += 1
            assert gzip.decompress(data) == out
            print(members, hashlib.sha256(out).hexdigest())
            """, [output])
        #expect(check.status == 0, "\(check.standardError)")
        // One member per MiB of input, in order, each compressed on its own (a worker's block).
        #expect(check.standardOutput == "6 \(sha256(content))\n")
        try store.importGzip(from: output, to: "docs/restored.pdf")
        #expect(try store.read("docs/restored.pdf") == content)
    }

    @Test(arguments: FileEngineKind.available)
    func gzipExportOfAnExactMultipleOfTheMemberSize(_ engine: FileEngineKind) throws {
        let (location, store) = try open(engine)
        let content = textLike(2 << 20)
        try store.write(content, to: "docs/even.txt")
        let output = location.directory.appending("even.gz")
        try store.exportGzip("docs/even.txt", to: output)
        let unpacked = try tool("/bin/sh", ["-c", "gzip -dc '\(output)' | sha256sum"])
        #expect(unpacked.standardOutput.hasPrefix(sha256(content)))
    }

    @Test(arguments: FileEngineKind.available)
    func zipExportCompressesWholeEntriesOnWorkersInOrderAndStoresWhatDoesNotShrink(_ engine: FileEngineKind) throws {
        let (location, store) = try open(engine)
        var files: [String: Data] = [:]
        for index in 0..<24 { files[String(format: "reports/r-%02d.txt", index)] = textLike(50_000 + index * 130_000) }
        for index in 0..<6 { files["noise/n-\(index).bin"] = pseudoRandom(200_000 + index * 300_000, seed: 20) }
        // Nearly random: 1% would be saved. A photo (a compressed type) is stored unless deflate saves 3%; the
        // same bytes as text are deflated, since they do shrink.
        var nearlyRandom = pseudoRandom(600_000, seed: 3)
        nearlyRandom.replaceSubrange(0..<6_000, with: Data(count: 6_000))
        files["photos/almost.jpg"] = nearlyRandom
        files["photos/almost.txt"] = nearlyRandom
        files["reports/r-10-huge.txt"] = textLike(FileStore.wholeEntryLimit + 5)  // Streamed, between whole ones.
        files["empty/nothing.txt"] = Data()
        for (key, data) in files { try store.write(data, to: key) }
        let archive = location.directory.appending("many.zip")
        let entries = try store.exportZip([""], to: archive, options: ExportOptions(threads: 3)).entries
        #expect(entries == files.count)
        let test = try tool("/usr/bin/unzip", ["-t", archive])
        #expect(test.status == 0, "\(test.standardOutput)")
        let check = try python(
            """
            import sys, zipfile, hashlib, json
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            infos = z.infolist()
            assert [i.filename for i in infos] == sorted(i.filename for i in infos), 'entries out of order'
            assert [i.header_offset for i in infos] == sorted(i.header_offset for i in infos)
            print(json.dumps({i.filename: [hashlib.sha256(z.read(i)).hexdigest(), i.compress_type] for i in infos}))
            """, [archive])
        #expect(check.status == 0, "\(check.standardError)")
        let listing = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as! [String: [Any]]
        #expect(Set(listing.keys) == Set(files.keys))
        for (key, data) in files {
            #expect(listing[key]?[0] as? String == sha256(data), "\(key) differs after extraction")
            let method = listing[key]?[1] as? Int
            if key.hasPrefix("noise/") || key == "photos/almost.jpg" || data.isEmpty {
                #expect(method == 0, "\(key) is stored")
            } else {
                #expect(method == 8, "\(key) is deflated")
            }
        }
        let (otherLocation, other) = try open(engine)
        defer { withExtendedLifetime(otherLocation) {} }
        #expect(try other.importZip(from: archive).count == files.count)
        for (key, data) in files { #expect(try other.read(key) == data) }
    }
}

@Suite("FileStore: the disk path")
struct DiskPathTests {
    let fixture: FilesFixture
    var store: FileStore { fixture.store }
    init() throws { fixture = try FilesFixture() }

    func source(_ data: Data) throws -> FileHandle {
        let path = fixture.outside("source-\(UInt32.random(in: 0...UInt32.max))")
        try data.write(to: URL(fileURLWithPath: path))
        return FileHandle(forReadingAtPath: path)!
    }

    @Test func aDurableWriteHandsEachFullWindowToTheDiskAsItGoes() throws {
        defer { FaultInjector.shared.reset() }
        let content = pseudoRandom(2 * AtomicFile.Writer.writebackWindow + 5, seed: 4)
        let handle = try source(content)
        FaultInjector.shared.startCounting(pathContaining: fixture.directory.path)
        try store.write(to: "big.bin", from: handle)
        // Two full windows went to the disk before the final fsync.
        #expect(FaultInjector.shared.seenCount(of: .writeback) >= 2)
        FaultInjector.shared.reset()
        #expect(try store.read("big.bin") == content)
    }

    @Test func aFailedWritebackChangesNothing() throws {
        defer { FaultInjector.shared.reset() }
        let content = textLike(AtomicFile.Writer.writebackWindow * 2 + 1)
        FaultInjector.shared.inject(.error(EIO), on: .writeback, pathContaining: fixture.directory.path, times: 5)
        try store.write(content, to: "advice.txt")
        #expect(FaultInjector.shared.injectedCount >= 1)  // One write call of both windows: one hand-off.
        FaultInjector.shared.reset()
        #expect(try store.read("advice.txt") == content)
        #expect(try store.verify().isEmpty)
    }

    @Test(arguments: FileEngineKind.available, [1000, 1 << 20])
    func aWriteFromAHandleTakesEverythingFromItsOffset(_ engine: FileEngineKind, _ chunkSize: Int) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(chunkSize: chunkSize))
        let content = textLike(3 << 20 + 77)
        let handle = try source(content)
        try handle.seek(toOffset: 1234)
        try store.write(to: "from-offset.txt", from: handle)
        #expect(try store.read("from-offset.txt") == content.dropFirst(1234))
        try store.copy("from-offset.txt", to: "copy.txt")
        #expect(try store.read("copy.txt") == content.dropFirst(1234))
        #expect(try store.verify().isEmpty)
    }

    @Test(arguments: FileEngineKind.available)
    func chunksHandedOutMayBeKeptAndBuffersAreLent(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(chunkSize: 64 << 10))
        let content = pseudoRandom(1 << 20 + 7, seed: 8)
        try store.write(content, to: "r.bin")
        var kept: [Data] = []
        #expect(try store.read("r.bin") { kept.append($0) } == content.count)
        #expect(kept.count == 17)
        #expect(kept.reduce(Data(), +) == content)
        var crc: UInt32 = 0
        #expect(try store.forEachChunk(of: "r.bin", { crc = LibDeflate.crc32($0, continuing: crc) }) == content.count)
        #expect(crc == content.withUnsafeBytes { LibDeflate.crc32($0) })
        #expect(throws: StorageError.self) { try store.forEachChunk(of: "missing.bin") { _ in } }
    }
}

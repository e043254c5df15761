import Dispatch
import Foundation
import StrataArchiveFixtures
import StrataCore
import StrataLocalFiles
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataFiles

/// What a test builds with ``ZipBuilder`` and expects back: each entry's content, method and time.
private let when = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
private let contents: [(name: String, data: Data, method: ZipEntry.Method)] = [
    ("notes/show.txt", Data("Episode 12: the one with the archive".utf8), .deflated),
    ("notes/naïve résumé.txt", Data("unicode name".utf8), .deflated),
    ("art/cover.jpg", pseudoRandom(70_000, seed: 9), .stored),
    ("empty.txt", Data(), .deflated),
]
private let streamed = textLike(3 << 20 + 5)
private let streamedStored = pseudoRandom(600_000, seed: 4)

/// Adds the test entries to `builder`: from data, streamed (deflated and stored), and a folder.
private func fill(_ builder: ZipBuilder) throws {
    for (name, data, method) in contents {
        try builder.add(name, data: data, method: method, modificationDate: when)
    }
    for (name, data, method) in [
        ("audio/ep12.txt", streamed, ZipEntry.Method.deflated), ("audio/raw.bin", streamedStored, .stored),
    ] {
        var offset = 0
        try builder.add(name, method: method, modificationDate: when) { buffer in
            // Odd-sized reads, as a pipe or socket gives them.
            let count = min(buffer.count, data.count - offset, 77_777)
            data.withUnsafeBytes {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)]))
            }
            offset += count
            return count
        }
    }
    try builder.addDirectory("empty-folder", modificationDate: when)
}

/// Every test entry's expected content by name.
private var expected: [String: Data] {
    var all = Dictionary(uniqueKeysWithValues: contents.map { ($0.name, $0.data) })
    all["audio/ep12.txt"] = streamed
    all["audio/raw.bin"] = streamedStored
    return all
}

@Suite("ZipArchive and ZipBuilder: per-entry archives")
struct ZipArchiveTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "strata-zip") }

    /// `unzip -t` and Python's `zipfile` accept the archive, and find every entry's content, method and time.
    func expectStandardToolsRead(_ path: String) throws {
        let test = try tool("/usr/bin/unzip", ["-t", path])
        #expect(test.status == 0, "\(test.standardOutput)\(test.standardError)")
        #expect(test.standardOutput.contains("No errors detected"))
        let check = try python(
            """
            import sys, zipfile, hashlib, json, calendar
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(json.dumps({i.filename: [hashlib.sha256(z.read(i)).hexdigest(), i.compress_type, i.is_dir()]
                              for i in z.infolist()}))
            """, [path])
        #expect(check.status == 0, "\(check.standardError)")
        let listing = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: [Any]] ?? [:]
        #expect(Set(listing.keys) == Set(expected.keys).union(["empty-folder/"]))
        for (name, data) in expected {
            #expect(listing[name]?[0] as? String == sha256(data), "\(name)")
        }
        #expect(listing["art/cover.jpg"]?[1] as? Int == 0)
        #expect(listing["audio/raw.bin"]?[1] as? Int == 0)
        #expect(listing["audio/ep12.txt"]?[1] as? Int == 8)
        #expect(listing["notes/show.txt"]?[1] as? Int == 8)
        #expect(listing["empty-folder/"]?[2] as? Bool == true)
    }

    /// Lists and reads back what ``fill(_:)`` built, entry by entry.
    func expectReadsBack(_ archive: ZipArchive) throws {
        #expect(
            archive.entries.map(\.name) == contents.map(\.name) + ["audio/ep12.txt", "audio/raw.bin", "empty-folder/"])
        for (name, data) in expected {
            let entry = try #require(archive[name])
            #expect(entry.size == data.count)
            #expect(entry.crc32 == data.withUnsafeBytes { LibDeflate.crc32($0) })
            #expect(entry.modificationDate == when, "\(name)")
            #expect(!entry.isDirectory)
            #expect(try archive.data(for: name) == data, "\(name)")
        }
        #expect(archive["art/cover.jpg"]?.method == .stored)
        #expect(archive["audio/ep12.txt"]?.method == .deflated)
        #expect(try #require(archive["audio/ep12.txt"]).compressedSize < streamed.count / 2)
        #expect(archive["empty-folder/"]?.isDirectory == true)
    }

    @Test func anArchiveBuiltInMemoryPassesUnzipAndPythonAndReadsBack() throws {
        let builder = ZipBuilder()
        try fill(builder)
        let data = try builder.finish()
        let path = directory.appending("memory.zip")
        try data.write(to: URL(fileURLWithPath: path))
        try expectStandardToolsRead(path)
        try expectReadsBack(try ZipArchive(data: data))
        try expectReadsBack(try ZipArchive(path: path))
        // And the import takes it whole.
        let store = try FileStore(root: directory.appending("store"))
        let imported = try store.importZip(from: path)
        #expect(Set(imported) == Set(expected.keys))
    }

    @Test func anArchiveBuiltIntoAFileHandlePassesUnzipAndPythonAndReadsBack() throws {
        let path = directory.appending("handle.zip")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let builder = ZipBuilder(writingTo: handle, threads: 3)
        try fill(builder)
        #expect(try builder.finish().isEmpty)
        try handle.close()
        try expectStandardToolsRead(path)
        let reading = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? reading.close() }
        try expectReadsBack(try ZipArchive(reading: reading))
    }

    @Test func anArchiveBuiltIntoAPipeIsWrittenInOnePass() throws {
        let pipe = Pipe()
        let builder = ZipBuilder(writingTo: pipe.fileHandleForWriting)
        let outcome = BuildOutcome()
        // The builder writes on a thread of its own while this one reads: a pipe holds only 64 KiB.
        Thread.detachNewThread {
            outcome.finish {
                defer { try? pipe.fileHandleForWriting.close() }
                try fill(builder)
                try builder.finish()
            }
        }
        let received = pipe.fileHandleForReading.readDataToEndOfFile()
        outcome.done.wait()
        if let error = outcome.error { throw error }
        try expectReadsBack(try ZipArchive(data: received))
    }

    /// The list matches what Python's `zipfile` wrote, times included (the MS-DOS fields, and the extended
    /// timestamp when present).
    @Test func entriesOfAnArchiveMadeByPythonAreListedWithoutExtracting() throws {
        let path = directory.appending("python.zip")
        let made = try python(
            """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], 'w')
            z.writestr(zipfile.ZipInfo('a/deflated.txt', (2024, 2, 29, 13, 45, 58)), b'hello ' * 1000, zipfile.ZIP_DEFLATED)
            z.writestr(zipfile.ZipInfo('stored.bin', (1999, 12, 31, 23, 59, 30)), bytes(range(256)), zipfile.ZIP_STORED)
            z.writestr(zipfile.ZipInfo('folder/', (2020, 1, 1, 0, 0, 0)), b'')
            z.close()
            """, [path])
        #expect(made.status == 0, "\(made.standardError)")
        let archive = try ZipArchive(path: path)
        #expect(archive.entries.map(\.name) == ["a/deflated.txt", "stored.bin", "folder/"])
        let text = Data(String(repeating: "hello ", count: 1000).utf8)
        let first = try #require(archive["a/deflated.txt"])
        #expect(first.method == .deflated && first.size == text.count && first.compressedSize < text.count)
        #expect(first.crc32 == text.withUnsafeBytes { LibDeflate.crc32($0) })
        var parts = DateComponents(year: 2024, month: 2, day: 29, hour: 13, minute: 45, second: 58)
        parts.timeZone = .current
        #expect(first.modificationDate == Calendar(identifier: .gregorian).date(from: parts))
        #expect(archive["stored.bin"]?.method == .stored)
        #expect(archive["folder/"]?.isDirectory == true)
        #expect(try archive.data(for: "a/deflated.txt") == text)
    }

    /// A large entry arrives in chunks no larger than the reader's window, whatever its size.
    @Test func aLargeEntryIsReadAsAStreamOfBoundedChunks() throws {
        let builder = ZipBuilder()
        let big = textLike(24 << 20)
        try builder.add("big.txt", data: big)
        let archive = try ZipArchive(data: try builder.finish())
        var largest = 0
        var chunks = 0
        var crc: UInt32 = 0
        let count = try archive.read("big.txt") { chunk in
            largest = max(largest, chunk.count)
            chunks += 1
            crc = LibDeflate.crc32(chunk, continuing: crc)
        }
        #expect(count == big.count)
        #expect(crc == big.withUnsafeBytes { LibDeflate.crc32($0) })
        #expect(chunks > 1)
        #expect(largest <= 1 << 20, "one chunk held \(largest) bytes")
    }

    @Test func readsFromManyThreadsAtOnceAgree() throws {
        let builder = ZipBuilder()
        for index in 0..<16 { try builder.add("f\(index)", data: textLike(50_000 + index)) }
        let path = directory.appending("shared.zip")
        try builder.finish().write(to: URL(fileURLWithPath: path))
        let archive = try ZipArchive(path: path)
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let name = "f\(index % 16)"
            if (try? archive.data(for: name)) != textLike(50_000 + index % 16) { wrong.withLock { $0 += 1 } }
        }
        #expect(wrong.withLock { $0 } == 0)
    }

    // MARK: Lies and hostile archives

    /// A CRC or a size that lies is found at the end of the read: a typed error naming the archive and the entry,
    /// from a file and from memory alike.
    @Test(arguments: ["crc", "short", "long"], [true, false])
    func aLyingEntryIsATypedErrorNamingArchiveAndEntry(_ lie: String, _ inMemory: Bool) throws {
        var entry = ZipSkeleton.Entry(name: "docs/liar.txt", content: Array(textLike(5_000)))
        entry.deflate = true
        switch lie {
        case "crc": entry.crc = 0xDEAD_BEEF
        case "short": entry.size = 4_000
        default: entry.size = 6_000
        }
        let bytes = ZipSkeleton(entries: [ZipSkeleton.Entry(name: "fine.txt", content: [1, 2, 3]), entry]).bytes()
        let path = directory.appending("liar.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let archive = inMemory ? try ZipArchive(data: Data(bytes), name: "upload.zip") : try ZipArchive(path: path)
        #expect(try archive.data(for: "fine.txt") == Data([1, 2, 3]))
        let error = #expect(throws: StorageError.self) { try archive.read("docs/liar.txt") { _ in } }
        #expect(error?.code == (lie == "short" ? .limitExceeded : .corrupt), "\(String(describing: error))")
        #expect(error?.key == "docs/liar.txt")
        #expect(error?.path == (inMemory ? "upload.zip" : path))
    }

    @Test func anEntryThatIsNotThereIsNotFound() throws {
        let archive = try ZipArchive(data: ZipBuilderFixture.small())
        let error = #expect(throws: StorageError.self) { try archive.read("missing.txt") { _ in } }
        #expect(error?.code == .notFound)
        #expect(error?.key == "missing.txt")
        #expect(archive["missing.txt"] == nil)
    }

    /// The import's limits and name rules hold when an archive is only listed: typed errors, never a crash.
    @Test(arguments: [
        (["../x"], StorageError.Code.invalidKey), (["/abs"], .invalidKey), (["a\u{0}b"], .invalidKey),
        (["a\\b"], .invalidKey), (["a//b"], .invalidKey), (["same", "same"], .invalidArgument),
        (["d", "d/x"], .invalidArgument),
    ])
    func hostileNamesAreRefusedWhenListing(_ names: [String], _ code: StorageError.Code) throws {
        let bytes = ZipSkeleton(entries: names.map { ZipSkeleton.Entry(name: $0, content: [1]) }).bytes()
        let error = #expect(throws: StorageError.self) { try ZipArchive(data: Data(bytes), name: "hostile.zip") }
        #expect(error?.code == code, "\(names): \(String(describing: error))")
        #expect(error?.path == "hostile.zip")
        #expect(error?.key != nil)
    }

    @Test func aSymbolicLinkEntryIsRefusedWhenListing() throws {
        var link = ZipSkeleton.Entry(name: "link", content: Array("/etc/passwd".utf8))
        link.unixMode = 0o120777
        let error = #expect(throws: StorageError.self) {
            try ZipArchive(data: Data(ZipSkeleton(entries: [link]).bytes()))
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.key == "link")
    }

    @Test func theEntryCountTotalSizeAndRatioLimitsHoldWhenListing() throws {
        let three = Data(ZipSkeleton(entries: (0..<3).map { ZipSkeleton.Entry(name: "f\($0)", content: [1]) }).bytes())
        let many = #expect(throws: StorageError.self) {
            try ZipArchive(data: three, limits: ImportLimits(maximumEntries: 2))
        }
        #expect(many?.code == .limitExceeded)
        let total = #expect(throws: StorageError.self) {
            try ZipArchive(data: three, limits: ImportLimits(maximumTotalSize: 2))
        }
        #expect(total?.code == .limitExceeded)
        var bomb = ZipSkeleton.Entry(name: "bomb", content: Array(Data(count: 8 << 20)))
        bomb.deflate = true
        let ratio = #expect(throws: StorageError.self) {
            try ZipArchive(data: Data(ZipSkeleton(entries: [bomb]).bytes()))
        }
        #expect(ratio?.code == .limitExceeded)
        #expect(ratio?.key == "bomb")
    }

    @Test(arguments: OverflowCase.all)
    func overflowingZip64FieldsAreRefusedTypedInMemoryAndFromAFile(_ hostile: OverflowCase) throws {
        let bytes = Data(hostile.archive.bytes())
        let path = directory.appending("overflow.zip")
        try bytes.write(to: URL(fileURLWithPath: path))
        for open in [{ try ZipArchive(data: bytes, name: path) }, { try ZipArchive(path: path) }] {
            do {
                let archive = try open()
                // Listing may pass when the lie is only in the data's place: the read must catch it.
                for entry in archive.entries {
                    let error = #expect(throws: StorageError.self) { try archive.read(entry.name) { _ in } }
                    #expect(error?.code == .corrupt || error?.code == .limitExceeded)
                }
            } catch let error as StorageError {
                #expect(error.code == .corrupt || error.code == .limitExceeded, "\(error)")
                #expect(error.path == path)
            }
        }
    }

    @Test func truncatedArchivesAreCorruptAtEveryLength() throws {
        let whole = ZipBuilderFixture.small()
        for length in stride(from: 0, to: whole.count, by: 7) {
            let cut = whole.prefix(length)
            do {
                let archive = try ZipArchive(data: Data(cut))
                for entry in archive.entries { _ = try archive.data(for: entry.name) }
                Issue.record("a cut at \(length) of \(whole.count) bytes was read whole")
            } catch let error as StorageError {
                #expect(error.code == .corrupt, "at \(length): \(error)")
            }
        }
    }

    // MARK: The builder's own checks

    @Test(arguments: ["../x", "/abs", "a\u{0}b", "a//b", "", ".strata-x"])
    func theBuilderRefusesNamesAnImportWouldRefuse(_ name: String) throws {
        let builder = ZipBuilder()
        let error = #expect(throws: StorageError.self) { try builder.add(name, data: Data("x".utf8)) }
        #expect(error?.code == .invalidKey)
        #expect(error?.key == name)
        // The builder is still usable.
        try builder.add("fine.txt", data: Data("x".utf8))
        #expect(try ZipArchive(data: try builder.finish()).entries.map(\.name) == ["fine.txt"])
    }

    @Test func theBuilderRefusesADuplicateAndAnythingAfterFinish() throws {
        let builder = ZipBuilder()
        try builder.add("a.txt", data: Data("1".utf8))
        let twice = #expect(throws: StorageError.self) { try builder.add("a.txt", data: Data("2".utf8)) }
        #expect(twice?.code == .invalidArgument)
        try builder.finish()
        let late = #expect(throws: StorageError.self) { try builder.add("b.txt", data: Data("3".utf8)) }
        #expect(late?.code == .invalidArgument)
        #expect(throws: StorageError.self) { try builder.finish() }
    }

    @Test func aStreamThatFailsHalfwayLeavesTheBuilderRefusingMore() throws {
        let builder = ZipBuilder()
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try builder.add("half.txt") { _ in throw Broken() }
        }
        let after = #expect(throws: StorageError.self) { try builder.finish() }
        #expect(after?.code == .invalidArgument)
    }
}

/// A build run on another thread: its error, handed over once `done` is signalled.
final class BuildOutcome: @unchecked Sendable {
    // Safe without a lock: written before `done.signal()`, read only after `done.wait()`.
    var error: (any Error)?
    let done = DispatchSemaphore(value: 0)

    func finish(_ body: () throws -> Void) {
        do { try body() } catch { self.error = error }
        done.signal()
    }
}

/// A small honest archive for the tests that damage one.
enum ZipBuilderFixture {
    static func small() -> Data {
        let builder = ZipBuilder()
        try? builder.add("one.txt", data: textLike(10_000), modificationDate: when)
        try? builder.add("two.bin", data: pseudoRandom(3_000, seed: 2), method: .stored, modificationDate: when)
        return (try? builder.finish()) ?? Data()
    }
}

import Foundation
import StrataBackup
import StrataCore
import StrataSecrets
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Backup repository")
struct BackupRepositoryTests {
    @Test("files round-trip through a snapshot, read from a descriptor or from memory")
    func roundTrip() throws {
        let fixture = try BackupFixture()
        let big = BackupFixture.bytes(700_000, seed: 1)
        let path = fixture.directory.appending("big.bin")
        try Data(big).write(to: URL(fileURLWithPath: path))
        let repository = try fixture.open()
        let writer = try repository.beginSnapshot()
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        try writer.add(
            BackupFixture.captured("records/big.bin", size: big.count), contentsOf: FileDescriptor(rawValue: fd))
        try writer.add(BackupFixture.captured("empty", size: 0), contents: [])
        try writer.add(BackupFixture.captured("small.txt", size: 5), contents: Array("hello".utf8))
        let summary = try writer.commit(metadata: ["catalog": "{}"])
        #expect(summary.fileCount == 3)
        #expect(summary.totalSize == Int64(big.count + 5))
        #expect(summary.addedBlobs > 10)  // 700 kB in ~16 KiB chunks.
        let restored = try fixture.restore(String(summary.id.prefix(10)))
        #expect(restored["records/big.bin"] == big)
        #expect(restored["empty"] == [])
        #expect(restored["small.txt"] == Array("hello".utf8))
        let listed = try fixture.open().snapshots()
        #expect(listed.map(\.id) == [summary.id])
        #expect(listed.first?.metadata == ["catalog": "{}"])
    }

    @Test("a second backup of unchanged files reuses the parent's chunks without reading and writes nothing")
    func secondBackupWritesNothing() throws {
        let fixture = try BackupFixture()
        let files = (0..<20).map { ("file-\($0)", BackupFixture.bytes(50_000, seed: UInt64($0))) }
        let first = try fixture.backUp(files)
        let second = try fixture.backUp(files)
        #expect(first.addedBytes > 1_000_000)
        #expect(second.addedBytes == 0)
        #expect(second.reusedFiles == 20)
        #expect(second.parent == first.id)
        // A forced full read reads every file, and still stores nothing the repository holds.
        let third = try fixture.backUp(files, readsEverything: true)
        #expect(third.reusedFiles == 0)
        #expect(third.addedBlobs == 0)
        #expect(try fixture.restore(third.id) == Dictionary(uniqueKeysWithValues: files))
    }

    @Test("a changed modification time makes a file be read again; equal content is still not stored twice")
    func changedTimeRereads() throws {
        let fixture = try BackupFixture()
        let files = [("a", BackupFixture.bytes(200_000, seed: 7))]
        try fixture.backUp(files, time: 100)
        let second = try fixture.backUp(files, time: 200)
        #expect(second.reusedFiles == 0)
        #expect(second.addedBlobs == 0)
    }

    @Test("an insertion in the middle of a file changes only the chunks around it")
    func insertionMovesFewChunks() throws {
        let fixture = try BackupFixture()
        let original = BackupFixture.bytes(1_000_000, seed: 3)
        let first = try fixture.backUp([("file", original)], time: 1)
        var edited = original
        edited.insert(contentsOf: Array("inserted!".utf8), at: 500_000)
        let second = try fixture.backUp([("file", edited)], time: 2)
        #expect(first.addedBlobs > 30)
        #expect(second.addedBlobs <= 3)
        #expect(try fixture.restore(second.id)["file"] == edited)
    }

    @Test("equal content in two files is stored once")
    func deduplicatesAcrossFiles() throws {
        let fixture = try BackupFixture()
        let content = BackupFixture.bytes(300_000, seed: 9)  // Random: it does not compress.
        let two = try fixture.backUp([("a", content), ("b", content)])
        #expect(two.addedBytes > 300_000 && two.addedBytes < 360_000)
        let third = try fixture.backUp([("c", content)], readsEverything: true)
        #expect(third.addedBlobs == 0)
    }

    @Test("a file that ends before its size is refused, naming it")
    func shortFileRefused() throws {
        let fixture = try BackupFixture()
        let path = fixture.directory.appending("short")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let writer = try fixture.open().beginSnapshot()
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let error = #expect(throws: StorageError.self) {
            try writer.add(BackupFixture.captured("short", size: 10), contentsOf: FileDescriptor(rawValue: fd))
        }
        #expect(error?.code == .corrupt)
        #expect(error?.key == "short")
        writer.abandon()
        #expect(try fixture.open().snapshots().isEmpty)
    }

    @Test("snapshot ids: a unique prefix opens one, an ambiguous or unknown one is refused")
    func prefixes() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("a", [1])])
        let repository = try fixture.open()
        #expect(try repository.snapshot(String(summary.id.prefix(4))).summary.id == summary.id)
        #expect(throws: StorageError.self) { try repository.snapshot("zz") }
        let error = #expect(throws: StorageError.self) { try repository.snapshot("") }
        #expect(error?.code == .notFound)
    }

    @Test("a key file opens the repository; a readable-by-others key file and a wrong passphrase are refused")
    func keys() throws {
        let directory = try TemporaryDirectory(prefix: "strata-backup")
        let keyPath = directory.appending("key")
        try RepositoryKey.createKeyFile(at: keyPath)
        _ = try BackupRepository.create(at: directory.appending("repo"), key: .keyFile(keyPath))
        _ = try BackupRepository.open(at: directory.appending("repo"), key: .keyFile(keyPath))
        chmod(keyPath, 0o640)
        let unsafe = #expect(throws: StorageError.self) {
            try BackupRepository.open(at: directory.appending("repo"), key: .keyFile(keyPath))
        }
        #expect(unsafe?.code == .unsafePermissions)
        let fixture = try BackupFixture()
        let wrong = #expect(throws: StorageError.self) {
            try BackupRepository.open(at: fixture.path, key: .passphrase("wrong", cost: .minimumForTests))
        }
        #expect(wrong?.code == .authenticationFailed)
    }

    @Test("a new repository needs an empty folder")
    func createRefusesNonEmpty() throws {
        let fixture = try BackupFixture()
        let error = #expect(throws: StorageError.self) {
            try BackupRepository.create(at: fixture.path, key: BackupFixture.key)
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("no file of the repository holds a stored name or value in plaintext")
    func byteScanFindsNoPlaintext() throws {
        let fixture = try BackupFixture()
        let secretName = "payroll-2026-confidential.pdf"
        let secretValue = "the launch code is 7391-ALPHA-TANGO"
        let content = Array(String(repeating: secretValue + "\n", count: 2000).utf8)
        try fixture.backUp(
            [(secretName, content), ("defaults/" + secretName, Array(secretValue.utf8))],
            metadata: ["catalog": secretName])
        let needles = [secretName, secretValue, "payroll", "launch code"].map { Array($0.utf8) }
        var scanned = 0
        let enumerator = FileManager.default.enumerator(atPath: fixture.path)!
        for case let relative as String in enumerator {
            let full = fixture.path + "/" + relative
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: full)))
            scanned += bytes.count
            for needle in needles {
                #expect(!contains(bytes, needle), "\(relative) holds plaintext")
            }
        }
        #expect(scanned > 1000)
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }
}

import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hostile repository: files sealed with the repository's own keys (as someone holding the passphrase, or a bug,
/// could write them) whose content lies. Every lie must be a typed error naming the file and what is wrong, found
/// before memory, time or disk is spent on it.
@Suite("Backup repository: hostile content")
struct BackupHostileRepositoryTests {
    /// A lie an index file can tell about a blob.
    enum EntryLie: String, CaseIterable, Sendable {
        case hugeRawLength, negativeRawLength, hugeLength, negativeLength, offsetNearIntMax, negativeOffset

        func apply(_ entry: inout PackEntry) {
            switch self {
            case .hugeRawLength: entry.rawLength = 1 << 40
            case .negativeRawLength: entry.rawLength = -1
            case .hugeLength: entry.length = 1 << 40
            case .negativeLength: entry.length = -5
            case .offsetNearIntMax: entry.offset = Int.max - 2
            case .negativeOffset: entry.offset = -100
            }
        }
    }

    @Test(
        "an index entry with an impossible offset or length is corrupt, naming the index file",
        arguments: EntryLie.allCases)
    func indexEntryLies(_ lie: EntryLie) throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("files/a", BackupFixture.bytes(20_000, seed: 1))])
        let repository = try fixture.open()
        let indexName = try #require(try fixture.files(in: "index").first).dropFirst("index/".count)
        var records = try RepositoryIndex.read(
            String(indexName), in: repository.indexFolder, keys: repository.keys,
            maximumChunk: repository.configuration.maximumChunk)
        for record in records.indices {
            for entry in records[record].blobs.indices { lie.apply(&records[record].blobs[entry]) }
        }
        try rewrite(records, as: String(indexName), in: repository)
        let error = try #require(throws: StorageError.self) { try fixture.restore(summary.id) }
        #expect(error.code == .corrupt)
        #expect(error.path == repository.indexFolder.path(of: String(indexName)))
        #expect(error.key != nil)
        let report = try fixture.open().check(readData: .all)
        #expect(report.problems.contains { $0.path == repository.indexFolder.path(of: String(indexName)) })
    }

    @Test("a chunk list that repeats a chunk is refused before more than the file's size is written")
    func loopingChunkList() throws {
        let fixture = try BackupFixture()
        // Below the fixture's minimum chunk (4 KiB): one chunk whatever the repository's keyed chunker cuts (5,000
        // bytes were cut in two now and then — the gear table comes from each repository's random key).
        let size = BackupFixture.smallOptions.minimumChunk - 96
        let summary = try fixture.backUp([("files/a", BackupFixture.bytes(size, seed: 2))])
        let repository = try fixture.open()
        var manifest = try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys)
        #expect(manifest.files[0].chunks.count == 1)
        manifest.files[0].chunks = Array(repeating: manifest.files[0].chunks[0], count: 2_000)
        try manifest.write(as: summary.id, in: repository.snapshotFolder, keys: repository.keys)

        let reader = try repository.snapshot(summary.id)
        let output = fixture.directory.appending("out")
        let fd = open(output, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let error = try #require(throws: StorageError.self) {
            try reader.write(reader.files[0], to: FileDescriptor(rawValue: fd))
        }
        #expect(error.code == .corrupt)
        #expect(error.key == "files/a")
        #expect(error.collection == summary.id)
        var info = stat()
        fstat(fd, &info)
        #expect(info.st_size <= size)
    }

    /// A lie a snapshot can tell about its files.
    enum ManifestLie: String, CaseIterable, Sendable {
        case sizesOverflow, negativeSize, moreChunksThanBytes

        func apply(_ manifest: inout SnapshotManifest) {
            switch self {
            case .sizesOverflow:
                manifest.files.append(manifest.files[0])
                manifest.files[1].file.path = "files/b"
                manifest.files[0].file.size = .max
                manifest.files[1].file.size = .max
            case .negativeSize:
                manifest.files[0].file.size = -1
            case .moreChunksThanBytes:
                manifest.files[0].file.size = 1
                manifest.files[0].chunks += manifest.files[0].chunks
            }
        }
    }

    @Test(
        "a snapshot whose files lie about their sizes, paths or chunks is corrupt, naming it",
        arguments: ManifestLie.allCases)
    func manifestLies(_ lie: ManifestLie) throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("files/a", BackupFixture.bytes(3_000, seed: 3))])
        let repository = try fixture.open()
        var manifest = try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys)
        lie.apply(&manifest)
        try manifest.write(as: summary.id, in: repository.snapshotFolder, keys: repository.keys)
        let path = repository.snapshotFolder.path(of: summary.id)
        let read = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        let listed = try #require(try repository.snapshots().damaged.first?.error)
        for error in [read, listed] {
            #expect(error.code == .corrupt)
            #expect(error.path == path)
            #expect(error.collection == summary.id)
        }
        #expect(try repository.check().problems.contains { $0.path == path })
    }

    @Test("an index file or snapshot far larger than any the repository writes is refused without being read")
    func oversizedFiles() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("files/a", BackupFixture.bytes(3_000, seed: 4))])
        let repository = try fixture.open()
        let hugeIndex = fixture.path + "/index/" + BackupRepository.randomName()
        let hugeSnapshot = fixture.path + "/snapshots/" + summary.id
        for path in [hugeIndex, hugeSnapshot] {
            try #require(truncate(path, 0) == 0 || FileManager.default.createFile(atPath: path, contents: nil))
            try #require(truncate(path, off_t(BackupRepository.maximumMetadataFileSize) + 1) == 0)
        }
        let before = try peakResidentBytes()
        let error = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        #expect(error.code == .tooLarge)
        #expect(error.path == hugeSnapshot || error.path == hugeIndex)
        // The index is read when the first chunk needs it: the huge file is left out, and named.
        let writer = try repository.beginSnapshot(parent: .none)
        try writer.add(BackupFixture.captured("files/b", size: 3), contents: [1, 2, 3])
        let indexError = try #require(writer.damaged.first { $0.kind == .index }?.error)
        #expect(indexError.code == .tooLarge)
        #expect(indexError.path == hugeIndex)
        writer.abandon()
        #expect(try peakResidentBytes() - before < 64 << 20)
    }

    @Test("key slots asking for an absurd Argon2id cost are refused at once, before any hashing")
    func absurdKeySlotCost() throws {
        let fixture = try BackupFixture()
        let keys = fixture.path + "/keys"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: keys).first)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: keys + "/" + name)))
        for (operations, memory) in [(UInt64(1) << 40, 1 << 20), (3, 1 << 42), (0, 8 << 20), (3, -1)] {
            var slot = try KeySlot.decode(bytes, path: name)
            slot.operations = operations
            slot.memory = memory
            try Data(try slot.encoded()).write(to: URL(fileURLWithPath: keys + "/" + name))
            // Hashing (1 << 40) passes would not end: the refusal must come before it.
            let error = try #require(throws: StorageError.self) { _ = try fixture.open() }
            #expect(error.code == .corrupt)
            #expect(error.path == keys + "/" + name)
        }
    }

    @Test(
        "an index naming a pack outside data/ is corrupt and left out, and prune deletes nothing outside the repository"
    )
    func packNameEscapes() throws {
        let fixture = try BackupFixture()
        let summary = try fixture.backUp([("files/a", BackupFixture.bytes(3_000, seed: 5))])
        let victim = fixture.directory.appending("victim")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        let repository = try fixture.open()
        // An extra index file listing a blob no snapshot needs, in a "pack" two folders up: prune would delete it.
        let entry = PackEntry(id: String(repeating: "ab", count: 32), type: 0, offset: 6, length: 100, rawLength: 50)
        let name = BackupRepository.randomName()
        try rewrite([PackRecord(name: "../../victim", size: 7, blobs: [entry])], as: name, in: repository)
        let path = repository.indexFolder.path(of: name)
        let pruned = try repository.prune()
        let error = try #require(pruned.damaged.first?.error)
        #expect(pruned.damaged.count == 1 && error.code == .corrupt)
        #expect(error.path == path)
        #expect(FileManager.default.fileExists(atPath: path), "prune deletes no file it cannot read")
        #expect(try fixture.restore(summary.id) == ["files/a": BackupFixture.bytes(3_000, seed: 5)])
        #expect(try repository.check().problems.map(\.path) == [path])
        #expect(FileManager.default.fileExists(atPath: victim))
    }

    @Test("a repository whose key slots were all removed is damaged, not a wrong passphrase")
    func noKeySlotIsDamage() throws {
        let fixture = try BackupFixture()
        for slot in try fixture.files(in: "keys") {
            try FileManager.default.removeItem(atPath: fixture.path + "/" + slot)
        }
        let error = try #require(throws: StorageError.self) { _ = try fixture.open() }
        #expect(error.code == .corrupt)
        #expect(error.path == fixture.path + "/keys")
    }

    @Test("a pack whose header claims a length past its start is corrupt, naming the pack, without reading it")
    func packHeaderLengthLies() throws {
        let fixture = try BackupFixture()
        try fixture.backUp([("files/a", BackupFixture.bytes(3_000, seed: 6))])
        let pack = try #require(try fixture.files(in: "data").first)
        for length: UInt32 in [.max, 1 << 30, 0] {
            let full = fixture.path + "/" + pack
            var bytes = try Data(contentsOf: URL(fileURLWithPath: full))
            bytes.replaceSubrange(
                (bytes.count - 4)..., with: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: length >> $0) })
            try bytes.write(to: URL(fileURLWithPath: full))
            let problems = try fixture.open().check().problems
            #expect(problems.contains { $0.code == .corrupt && $0.path == full })
        }
    }

    @Test("a configuration with absurd chunk sizes is corrupt, naming it")
    func absurdConfiguration() throws {
        let fixture = try BackupFixture()
        let repository = try fixture.open()
        for (minimum, average, maximum, pack) in [
            (64, 1 << 20, 1 << 40, 1), (0, 0, 0, 1), (1 << 20, 64, 64, 1), (64, 64, 64, 0),
        ] {
            let configuration = RepositoryConfiguration(
                version: 1, id: "x", minimumChunk: minimum, averageChunk: average, maximumChunk: maximum, packSize: pack
            )
            let body = Array(try JSONEncoder().encode(configuration))
            try Data(SealedFile.seal(body, kind: .configuration, name: "config", key: repository.keys.seal)).write(
                to: URL(fileURLWithPath: fixture.path + "/config"))
            let error = try #require(throws: StorageError.self) { _ = try fixture.open() }
            #expect(error.code == .corrupt)
            #expect(error.path == fixture.path + "/config")
        }
    }

    private func rewrite(_ records: [PackRecord], as name: String, in repository: BackupRepository) throws {
        let body = Array(try JSONEncoder().encode(records))
        try Data(SealedFile.seal(body, kind: .index, name: name, key: repository.keys.seal)).write(
            to: URL(fileURLWithPath: repository.indexFolder.path(of: name)))
    }

    /// The process's peak resident set (`VmHWM`), in bytes.
    private func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
    }
}

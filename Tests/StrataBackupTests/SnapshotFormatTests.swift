import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup

/// Format 2 of a snapshot (binary) read back part by part: each damaged or lying part is `.corrupt` naming the
/// snapshot file, the part (`attribute`) and the file at fault (`key`) — sealed with the repository's own key, as a
/// bug or someone holding the passphrase could write it — and format 1 (JSON) snapshots still restore.
@Suite("Backup: snapshot format")
struct SnapshotFormatTests {
    /// A lie in one part of a snapshot's body.
    enum Lie: String, CaseIterable, Sendable {
        case hostCutShort, overlongNumber, metadataTwice, fileCountHuge, pathNotUTF8, unknownTier, modeTooLarge
        case sizeTooLarge, nanosecondsTooLarge, attributeCountHuge, attributeTwice, chunkCountHuge, moreChunksThanBytes
        case totalSizeWrong, trailingBytes

        /// The part the error must name, and whether it names the file `files/a`.
        var expected: (part: String, namesFile: Bool) {
            switch self {
            case .hostCutShort: ("host", false)
            case .overlongNumber: ("reusedFiles", false)
            case .metadataTwice: ("metadata", false)
            case .fileCountHuge: ("fileCount", false)
            case .pathNotUTF8: ("path", false)
            case .unknownTier: ("tier", true)
            case .modeTooLarge: ("mode", true)
            case .sizeTooLarge: ("size", true)
            case .nanosecondsTooLarge: ("modificationTime", true)
            case .attributeCountHuge, .attributeTwice: ("extendedAttributes", true)
            case .chunkCountHuge: ("chunks", true)
            case .moreChunksThanBytes: ("size", true)
            case .totalSizeWrong: ("totalSize", false)
            case .trailingBytes: ("end", false)
            }
        }

        /// A body of format 2 with one file, `files/a`, and this lie.
        var body: [UInt8] {
            var out = BinaryWriter()
            out.varint(2)
            out.fixed64(Double(1_700_000_000).bitPattern)
            if self == .hostCutShort {
                out.varint(1_000)
                out.raw(Array("ab".utf8))
                return out.bytes
            }
            out.string("host")
            out.string("")
            out.varint(self == .metadataTwice ? 2 : 1)
            out.string("catalog")
            out.string("{}")
            if self == .metadataTwice {
                out.string("catalog")
                out.string("[]")
            }
            if self == .overlongNumber {
                out.raw(Array(repeating: 0x80, count: 10) + [0x01])
            } else {
                out.varint(0)
            }
            out.varint(0)
            out.varint(0)
            out.varint(self == .fileCountHuge ? 1 << 40 : 1)
            out.varint(self == .totalSizeWrong ? 11 : 10)
            if self == .pathNotUTF8 { out.data([0x66, 0xFF, 0xFE]) } else { out.string("files/a") }
            out.byte(self == .unknownTier ? 9 : Tier.files.catalogCode)
            out.varint(self == .modeTooLarge ? UInt64(UInt32.max) + 1 : 0o600)
            out.varint(self == .sizeTooLarge ? UInt64(Int64.max) + 1 : self == .moreChunksThanBytes ? 1 : 10)
            out.signed(1_700_000_000)
            out.varint(self == .nanosecondsTooLarge ? UInt64(Int32.max) + 1 : 0)
            switch self {
            case .attributeCountHuge:
                out.varint(1 << 50)
            case .attributeTwice:
                out.varint(2)
                for _ in 0..<2 {
                    out.string("user.strata.integrity")
                    out.data([1, 2, 3])
                }
            default:
                out.varint(0)
            }
            let chunk = BlobID(Array(repeating: UInt8(7), count: 32))!
            out.varint(self == .chunkCountHuge ? UInt64(1) << 58 : self == .moreChunksThanBytes ? 2 : 1)
            chunk.append(to: &out)
            if self == .moreChunksThanBytes { chunk.append(to: &out) }
            if self == .trailingBytes { out.raw([0, 0, 0]) }
            return out.bytes
        }
    }

    /// A repository with one snapshot of one file, `files/a` (10 bytes).
    private func oneFileRepository() throws -> (BackupFixture, SnapshotSummary) {
        let fixture = try BackupFixture()
        return (fixture, try fixture.backUp([("files/a", BackupFixture.bytes(10, seed: 1))]))
    }

    /// Seals `body` as the snapshot file `id` (as the repository's own writer would).
    private func replace(_ id: String, with body: [UInt8], in repository: BackupRepository) throws {
        try Data(SealedFile.seal(body, kind: .snapshot, name: id, key: repository.keys.seal)).write(
            to: URL(fileURLWithPath: repository.snapshotFolder.path(of: id)))
    }

    @Test(
        "each lying part of a snapshot is corrupt, naming the snapshot, the part and the file", arguments: Lie.allCases)
    func lyingPart(_ lie: Lie) throws {
        let (fixture, summary) = try oneFileRepository()
        let repository = try fixture.open()
        try replace(summary.id, with: lie.body, in: repository)
        let path = repository.snapshotFolder.path(of: summary.id)
        let read = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        // Listed as damaged, with the same error: the listing goes on.
        let listed = try repository.snapshots()
        #expect(listed.isEmpty && listed.damaged.map(\.name) == [summary.id])
        for error in [read, try #require(listed.damaged.first?.error)] {
            #expect(error.code == .corrupt)
            #expect(error.path == path)
            #expect(error.collection == summary.id)
            #expect(error.attribute == lie.expected.part)
            #expect(error.key == (lie.expected.namesFile ? "files/a" : nil))
        }
        #expect(try repository.check().problems.contains { $0.path == path && $0.code == .corrupt })
        // A prune keeps what the damaged snapshot may need, and says why.
        let pruned = try repository.prune()
        #expect(pruned.damaged.map(\.name) == [summary.id] && pruned.blobsRemoved == 0)
    }

    @Test("random damage to a body (cut, flipped, spliced bytes) is a typed error or a sound read, never a crash")
    func randomDamage() throws {
        var files: [SnapshotManifest.Entry] = []
        for index in 0..<20 {
            let file = CapturedFile(
                path: "files/\(index)", tier: index % 3 == 0 ? nil : .files, mode: 0o600, size: 1_000,
                modificationTime: .init(seconds: -5 + Int64(index), nanoseconds: 999_999_999),
                extendedAttributes: index % 2 == 0 ? ["user.strata.integrity": [1, 2, 3]] : [:])
            let chunk = BlobID(Array(repeating: UInt8(index), count: 32))!
            files.append(SnapshotManifest.Entry(file, chunks: [chunk, chunk]))
        }
        let valid = SnapshotManifest(
            time: Date(timeIntervalSince1970: 1_700_000_000.5), host: "h", parent: nil, metadata: ["catalog": "{}"],
            files: files, reusedFiles: 1, addedBlobs: 2, addedBytes: 3
        ).encoded()
        let decoded = try SnapshotManifest.decode(valid, headerOnly: false, path: "p")
        #expect(decoded.encoded() == valid)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3_000 {
            var body = valid
            switch round % 3 {
            case 0: body.removeLast(Int.random(in: 1...body.count, using: &generator))
            case 1:
                body[Int.random(in: 0..<body.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            default:
                let at = Int.random(in: 0..<body.count, using: &generator)
                body.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], at: at)
            }
            do {
                _ = try SnapshotManifest.decode(body, headerOnly: round % 5 == 0, path: "p")
            } catch let error as StorageError {
                #expect(error.code == .corrupt || error.code == .unsupportedVersion)
                #expect(error.path == "p")
            }
        }
    }

    @Test("a snapshot body of a newer format is unsupportedVersion, naming it")
    func newerFormat() throws {
        let (fixture, summary) = try oneFileRepository()
        let repository = try fixture.open()
        var body = Lie.trailingBytes.body
        body[0] = 3
        try replace(summary.id, with: body, in: repository)
        let error = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        #expect(error.code == .unsupportedVersion)
        #expect(error.path == repository.snapshotFolder.path(of: summary.id))
    }

    @Test("a lie-free body built by hand reads back as written")
    func handBuiltBody() throws {
        let (fixture, summary) = try oneFileRepository()
        let repository = try fixture.open()
        var body = Lie.trailingBytes.body
        body.removeLast(3)
        try replace(summary.id, with: body, in: repository)
        let manifest = try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys)
        #expect(manifest.host == "host")
        #expect(manifest.metadata == ["catalog": "{}"])
        #expect(manifest.files.map(\.file.path) == ["files/a"])
        #expect(manifest.files[0].chunks == [BlobID(Array(repeating: UInt8(7), count: 32))!])
        #expect(manifest.totalSize == 10)
    }

    @Test(
        "a format 1 (JSON) snapshot restores, lists, checks and is the parent of the next backup, written in format 2")
    func formatOneStillReads() throws {
        let fixture = try BackupFixture()
        let files = [
            ("files/a", BackupFixture.bytes(70_000, seed: 1)), ("secrets/k/x.item", BackupFixture.bytes(200, seed: 2)),
        ]
        let summary = try fixture.backUp(files, metadata: ["catalog": "{}"])
        let repository = try fixture.open()
        let manifest = try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys)
        var old = SnapshotManifestV1(manifest)
        old.files[1].extendedAttributes = ["user.strata.integrity": Data([1, 2, 3]).base64EncodedString()]
        try replace(summary.id, with: Array(try JSONEncoder().encode(old)), in: repository)

        #expect(try fixture.restore(summary.id) == Dictionary(uniqueKeysWithValues: files))
        let reader = try repository.snapshot(summary.id)
        #expect(reader.files[1].extendedAttributes == ["user.strata.integrity": [1, 2, 3]])
        reader.close()
        let listed = try #require(try repository.snapshots().first)
        #expect(listed.fileCount == 2)
        #expect(listed.totalSize == 70_200)
        #expect(listed.metadata == ["catalog": "{}"])
        #expect(try repository.check(readData: .all).isSound)

        let next = try fixture.backUp(files)
        #expect(next.parent == summary.id)
        #expect(next.reusedFiles == 2)
        let body = try SealedFile.open(
            Array(try Data(contentsOf: URL(fileURLWithPath: repository.snapshotFolder.path(of: next.id)))),
            kind: .snapshot, name: next.id, key: repository.keys.seal, path: "")
        #expect(body.first == 2)
        #expect(try fixture.restore(next.id) == Dictionary(uniqueKeysWithValues: files))
    }

    @Test("a format 1 snapshot whose chunk is not a blob id is corrupt, naming the part and the file")
    func formatOneBadChunk() throws {
        let (fixture, summary) = try oneFileRepository()
        let repository = try fixture.open()
        var old = SnapshotManifestV1(
            try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys))
        old.files[0].chunks[0] = "../../etc/passwd"
        try replace(summary.id, with: Array(try JSONEncoder().encode(old)), in: repository)
        let error = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        #expect(error.code == .corrupt)
        #expect(error.attribute == "chunks")
        #expect(error.key == "files/a")
    }

    /// A lie format 1 can tell that format 2 cannot hold.
    enum FormatOneLie: String, CaseIterable, Sendable {
        case reusedFilesAtIntMinimum, negativeAddedBytes, negativeNanoseconds

        func apply(_ old: inout SnapshotManifestV1) -> String {
            switch self {
            case .reusedFilesAtIntMinimum: old.reusedFiles = .min
            case .negativeAddedBytes: old.addedBytes = -1
            case .negativeNanoseconds: old.files[0].modificationTime.nanoseconds = -1
            }
            return self == .negativeNanoseconds ? "modificationTime" : "counts"
        }
    }

    @Test(
        "a format 1 snapshot with a number format 2 cannot hold is corrupt, as in format 2 (the fuzz target found it)",
        arguments: FormatOneLie.allCases)
    func formatOneNumbersAreCheckedAsInFormatTwo(_ lie: FormatOneLie) throws {
        let (fixture, summary) = try oneFileRepository()
        let repository = try fixture.open()
        var old = SnapshotManifestV1(
            try SnapshotManifest.read(summary.id, in: repository.snapshotFolder, keys: repository.keys))
        let part = lie.apply(&old)
        try replace(summary.id, with: Array(try JSONEncoder().encode(old)), in: repository)
        // Listed with counts such as Int.min, `strata snapshots` overflowed computing the files changed.
        let listed = try repository.snapshots()
        #expect(listed.isEmpty && listed.damaged.first?.error.attribute == part)
        let error = try #require(throws: StorageError.self) { _ = try repository.snapshot(summary.id) }
        #expect(error.code == .corrupt && error.attribute == part)
    }
}

extension SnapshotManifestV1 {
    /// The format 1 form of `manifest`, as the first release wrote it (kept for tests only).
    init(_ manifest: SnapshotManifest) {
        self.init(
            version: 1, time: manifest.time.timeIntervalSince1970, host: manifest.host, parent: manifest.parent,
            metadata: manifest.metadata,
            files: manifest.files.map {
                Entry(
                    path: $0.file.path, tier: $0.file.tier?.rawValue, mode: $0.file.mode, size: $0.file.size,
                    modificationTime: $0.file.modificationTime,
                    extendedAttributes: $0.file.extendedAttributes.mapValues { Data($0).base64EncodedString() },
                    chunks: $0.chunks.map(\.description))
            }, reusedFiles: manifest.reusedFiles, addedBlobs: manifest.addedBlobs, addedBytes: manifest.addedBytes)
    }
}

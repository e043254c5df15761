import Foundation
import Strata
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

/// A restore from a repository reads ahead: the blobs of the next files are read, authenticated and decompressed on
/// worker threads while one file is written, adjacent blobs of a pack with one read. What it writes, and how it
/// fails, stay those of a restore that reads one blob at a time.
@Suite("Storage: restoring from a repository with read-ahead")
struct RestoreReadAheadTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var repo: String { directory.appending("repo") }
    var target: String { directory.appending("restored") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-restore-read-ahead")
    }

    /// Small chunks and packs: a file of 1 MiB is some 64 blobs over several packs.
    static var smallChunks: BackupOptions {
        var options = BackupOptions()
        options.minimumChunk = 4 << 10
        options.averageChunk = 16 << 10
        options.maximumChunk = 64 << 10
        options.packSize = 128 << 10
        return options
    }

    static func noise(_ count: Int, seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return Data(
            (0..<count).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            })
    }

    /// A store with every tier and, in the files tier, small files around one of 1 MiB, two empty files and two
    /// with the same content (their blobs shared); backed up into a new repository.
    /// - Returns: The repository, the snapshot, and every files-tier value by key.
    func backedUpStore() throws -> (BackupRepository, SnapshotSummary, [String: Data]) {
        let storage = try openStorage(root)
        var values: [String: Data] = [:]
        for index in 0..<4 { values["a/\(index).bin"] = Self.noise(48 << 10, seed: UInt64(index + 1)) }
        values["b/big.bin"] = Self.noise(1 << 20, seed: 99)
        values["c/empty-1.bin"] = Data()
        values["c/empty-2.bin"] = Data()
        values["d/same-1.bin"] = Self.noise(96 << 10, seed: 7)
        values["d/same-2.bin"] = Self.noise(96 << 10, seed: 7)
        for index in 0..<4 { values["e/\(index).bin"] = Self.noise(40 << 10, seed: UInt64(50 + index)) }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try storage.put(value, for: key, as: descriptorForTier[.files]!)
        }
        for (tier, descriptor) in descriptorForTier where tier != .files {
            try storage.put(Data("value of \(tier)".utf8), for: "k/\(tier)", as: descriptor)
        }
        try RepositoryKey.createKeyFile(at: directory.appending("repo.key"))
        let repository = try BackupRepository.create(
            at: repo, key: .keyFile(directory.appending("repo.key")), options: Self.smallChunks)
        return (repository, try storage.backup(to: repository).snapshot, values)
    }

    /// The restore's target and staging folders in the test's directory.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0 == "restored" || $0.hasPrefix(".strata-restore-")
        }
    }

    @Test func everyFileIsRestoredWholeInOrderAroundEmptyAndSharedOnes() throws {
        let (repository, snapshot, values) = try backedUpStore()
        let report = try Storage.restore(
            snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        #expect(report.fileCount == snapshot.fileCount - 1)  // The capture's description is read, not restored.
        let restored = try openStorage(target)
        for (key, value) in values { #expect(try restored.data(for: key) == value, "\(key)") }
        for tier in descriptorForTier.keys where tier != .files {
            #expect(try restored.data(for: "k/\(tier)") == Data("value of \(tier)".utf8))
        }
        #expect(try restored.verifyCatalog().isSound)
    }

    @Test func aDamagedBlobInTheMiddleOfAFileFailsTheRestoreAndLeavesNoStore() throws {
        let (repository, snapshot, _) = try backedUpStore()
        let reader = try repository.snapshot(snapshot.id)
        let big = try #require(reader.files.max { $0.size < $1.size })
        let blobs = try reader.blobs(of: big).blobs
        reader.close()
        try #require(blobs.count >= 16)
        let (id, location) = blobs[blobs.count / 2]
        // One bit of the blob's ciphertext, halfway through it.
        let pack = repo + "/data/" + location.pack
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pack))
        bytes[location.entry.offset + location.entry.length / 2] ^= 0x04
        try bytes.write(to: URL(fileURLWithPath: pack))

        let error = #expect(throws: StorageError.self) {
            try Storage.restore(snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.key == id.description)
        #expect(error?.path == pack)
        #expect(error?.collection == snapshot.id)
        #expect(try leftovers().isEmpty)
        // Nothing is held open: a restore of the same snapshot into the same place fails the same way.
        let again = #expect(throws: StorageError.self) {
            try Storage.restore(snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        }
        #expect(again?.key == id.description)
        #expect(try leftovers().isEmpty)
    }

    /// With a budget of 1 MiB (the files add up to some 1.5 MiB, in runs of at most a pack of 128 KiB), the read-ahead
    /// never holds more than the budget (the piece being written counted), and still writes every file whole.
    @Test func theReadAheadHoldsAtMostItsBudget() throws {
        let (repository, snapshot, values) = try backedUpStore()
        let reader = try repository.snapshot(snapshot.id)
        defer { reader.close() }
        reader.readAheadBudget = 1 << 20
        let files = reader.files.filter { $0.tier == .files }
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var written: [String: String] = [:]
        try reader.write(
            files,
            opening: { file in
                let path = target + "/\(written.count)"
                written[file.path] = path
                return FileDescriptor(rawValue: open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600))
            },
            finishing: { _, descriptor, _ in descriptor.close() })
        #expect(reader.readAheadPeak > 0)
        #expect(reader.readAheadPeak <= 1 << 20, "\(reader.readAheadPeak) bytes held at once")
        #expect(files.count == values.count)
        for file in files {
            let size = try FileManager.default.attributesOfItem(atPath: written[file.path]!)[.size] as? Int
            #expect(size.map(Int64.init) == file.size, "\(file.path)")
        }
    }

    @Test func adjacentBlobsOfAPackAreReadTogether() throws {
        let (repository, snapshot, _) = try backedUpStore()
        FaultInjector.shared.startCounting(pathContaining: repo + "/data/")
        defer { FaultInjector.shared.reset() }
        try Storage.restore(snapshot: snapshot.id, from: repository, to: target, secretsKey: testSecretsKey)
        let reads = FaultInjector.shared.seenCount(of: .read)
        // Some 90 blobs (most in the 1 MiB file) in about 12 packs: a read per run of a file's blobs in one pack, not
        // one per blob.
        #expect(reads > 0)
        #expect(reads * 2 < snapshot.addedBlobs, "\(reads) reads for \(snapshot.addedBlobs) blobs")
    }
}

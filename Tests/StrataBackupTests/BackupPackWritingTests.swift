import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataBackup

/// How chunks become blobs and packs: which chunks are deflated and kept compressed, that each content is sealed
/// once, and packs handed to the disk while they are written.
@Suite("Backup: compression and pack writing")
struct BackupPackWritingTests {
    /// 16-bit samples of a slow random walk, as audio: deflate saves some 3% of it at level 3, 2% at level 1.
    static func audio(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var sample: Int32 = 0
        var out = [UInt8]()
        out.reserveCapacity(count)
        while out.count < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            sample = max(-32000, min(32000, sample + Int32(truncatingIfNeeded: state % 2001) - 1000))
            out.append(UInt8(truncatingIfNeeded: sample))
            out.append(UInt8(truncatingIfNeeded: sample >> 8))
        }
        return Array(out.prefix(count))
    }

    /// Numbered lines of text: deflate saves most of it.
    static func text(_ count: Int, seed: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count + 80)
        var line = seed
        while out.count < count {
            out += Array("\(line) quarterly figures for the northern region: \(line &* 7_919 % 10_007)\n".utf8)
            line += 1
        }
        return Array(out.prefix(count))
    }

    /// The bytes a sealed blob adds to its payload: the nonce, the encoding byte and the tag.
    static let sealOverhead = 24 + 1 + 16

    /// Backs `files` up; returns the summary and, for every blob the repository's index lists, whether it is stored
    /// compressed (its payload shorter than its content) or as it was.
    static func backUp(_ fixture: BackupFixture, _ files: [(String, [UInt8])]) throws -> (
        SnapshotSummary, [Bool]
    ) {
        let repository = try fixture.open()
        let summary = try fixture.backUp(files)
        let index = try RepositoryIndex.load(
            from: repository.indexFolder, keys: repository.keys,
            maximumChunk: repository.configuration.maximumChunk)
        let compressed = index.blobs.values.map { $0.entry.length - sealOverhead < $0.entry.rawLength }
        return (summary, compressed)
    }

    /// Whether the sample of each piece of `content` of `length` bytes says to deflate it whole.
    static func samplesSayCompress(_ content: [UInt8], pieces length: Int) throws -> [Bool] {
        try stride(from: 0, to: content.count - length + 1, by: length).map { start in
            try content[start..<(start + length)].withUnsafeBytes { try BlobCodec.isWorthCompressing($0) }
        }
    }

    @Test(
        "content whose samples barely compress (audio, noise) is stored as it is, never deflated whole",
        arguments: ["audio", "noise"])
    func barelyCompressibleChunksAreStoredWithoutDeflating(kind: String) throws {
        let fixture = try BackupFixture(options: BackupOptions())
        let content =
            kind == "audio" ? Self.audio(4 << 20, seed: 1_000_000) : BackupFixture.bytes(3 << 20, seed: 7)
        // Every chunk but a file's last is at least the minimum (256 KiB, the sampled size): its sample says no,
        // so it is never deflated whole.
        for length in [BlobCodec.sampledChunk, 1 << 20] {
            #expect(try Self.samplesSayCompress(content, pieces: length).allSatisfy { !$0 }, "\(length)")
        }
        let (summary, compressed) = try Self.backUp(fixture, [("\(kind).bin", content)])
        #expect(compressed.count > 1)
        // Only a short last chunk may be kept compressed (audio saves ~3%, above the 1/64 rule): where the keyed
        // chunker cuts it depends on the repository's random key.
        #expect(compressed.filter { $0 }.count <= 1, "\(compressed)")
        // Stored as it is, but for that last chunk: nearly the whole content (plus nonces, tags, headers).
        #expect(summary.addedBytes > Int64(content.count) * 99 / 100, "\(summary.addedBytes) bytes")
        #expect(try fixture.restore(summary.id)["\(kind).bin"] == content)
    }

    @Test("compressible content is deflated whole and kept compressed, and restores as it was")
    func compressibleChunksAreDeflated() throws {
        let fixture = try BackupFixture(options: BackupOptions())
        // Text with a stretch of noise inside: the samples fall on the text around it.
        var content = Self.text(3 << 20, seed: 11)
        content.replaceSubrange((1 << 20)..<((1 << 20) + (64 << 10)), with: BackupFixture.bytes(64 << 10, seed: 3))
        let (summary, compressed) = try Self.backUp(fixture, [("report.pdf", content)])
        #expect(!compressed.isEmpty && compressed.allSatisfy { $0 }, "\(compressed)")
        #expect(summary.addedBytes < Int64(content.count / 3), "\(summary.addedBytes) bytes")
        #expect(try fixture.restore(summary.id)["report.pdf"] == content)
    }

    @Test("a chunk shorter than the sampled size is deflated whole whatever it holds")
    func shortChunksAreNotSampled() throws {
        let fixture = try BackupFixture()
        let noise = BackupFixture.bytes(100_000, seed: 4)
        #expect(try noise.withUnsafeBytes { try BlobCodec.isWorthCompressing($0) })
        let (summary, compressed) = try Self.backUp(
            fixture, [("short.txt", Self.text(100_000, seed: 2)), ("noise.bin", noise)])
        // The text kept compressed; the noise deflated in vain, so stored as it was.
        #expect(compressed.contains(true) && compressed.contains(false), "\(compressed)")
        let restored = try fixture.restore(summary.id)
        #expect(restored["short.txt"] == Self.text(100_000, seed: 2))
        #expect(restored["noise.bin"] == noise)
    }

    @Test("content repeated in one snapshot is stored once, by the first job to claim it")
    func repeatedContentIsSealedOnce() throws {
        let fixture = try BackupFixture(options: BackupOptions())
        // One chunk (under the minimum), in 16 files handed over back to back: jobs of the same content run at once.
        // Only the job that claims a blob seals it, and every sealed blob goes to a pack: one blob added is one seal.
        let content = Self.text(200 << 10, seed: 5)
        let files = (0..<16).map { ("copy-\($0).pdf", content) }
        let (summary, compressed) = try Self.backUp(fixture, files)
        #expect(summary.addedBlobs == 1)
        #expect(compressed.count == 1)
        let restored = try fixture.restore(summary.id)
        for (name, _) in files { #expect(restored[name] == content) }
        // The next snapshot finds it in the index: nothing is sealed again.
        let (again, _) = try Self.backUp(fixture, [("copy-again.pdf", content)])
        #expect(again.addedBlobs == 0)
    }

    @Test("a pack's bytes are handed to the disk while it is written, not all at its fsync")
    func packsAreHandedToTheDiskWhileWritten() throws {
        let fixture = try BackupFixture(options: BackupOptions())
        let content = BackupFixture.bytes(20 << 20, seed: 5)
        FaultInjector.shared.startCounting(pathContaining: fixture.path + "/data/")
        defer { FaultInjector.shared.reset() }
        let summary = try fixture.backUp([("noise.bin", content)])
        // One pack of 20 MiB: two full windows of 8 MiB handed over before its fsync.
        #expect(FaultInjector.shared.seenCount(of: .writeback) >= 2)
        #expect(FaultInjector.shared.seenCalls.last { $0 == .writeback || $0 == .fsync } == .fsync)
        #expect(try fixture.restore(summary.id)["noise.bin"] == content)
    }
}

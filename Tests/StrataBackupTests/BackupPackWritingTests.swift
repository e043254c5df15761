import Foundation
import StrataBackup
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

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

    /// Backs `files` up with the stage clock on; returns the summary and what became of the chunks.
    static func backUp(_ fixture: BackupFixture, _ files: [(String, [UInt8])]) throws -> (
        SnapshotSummary, BackupStages.Chunks
    ) {
        let writer = try fixture.open().beginSnapshot()
        let stages = BackupStages()
        writer.stages = stages
        for (name, content) in files {
            try writer.add(BackupFixture.captured(name, size: content.count), contents: content)
        }
        let summary = try writer.commit()
        return (summary, stages.chunks)
    }

    @Test(
        "content whose samples barely compress (audio, noise) is stored as it is, never deflated whole",
        arguments: ["audio", "noise"])
    func barelyCompressibleChunksAreStoredWithoutDeflating(kind: String) throws {
        let fixture = try BackupFixture(options: BackupOptions())
        let content =
            kind == "audio" ? Self.audio(4 << 20, seed: 1_000_000) : BackupFixture.bytes(3 << 20, seed: 7)
        let (summary, chunks) = try Self.backUp(fixture, [("\(kind).bin", content)])
        #expect(chunks.count > 1)
        // Every chunk but a file's last is at least the minimum (256 KiB) and sampled; a last one shorter than
        // 256 KiB is deflated whole, in vain.
        #expect(chunks.skipped >= chunks.count - 1 && chunks.skipped > 0, "\(chunks)")
        // Only that short last chunk may be kept compressed (audio saves ~3%, above the 1/64 rule): where the keyed
        // chunker cuts it depends on the repository's random key.
        #expect(chunks.compressed <= chunks.count - chunks.skipped, "\(chunks)")
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
        let (summary, chunks) = try Self.backUp(fixture, [("report.pdf", content)])
        #expect(chunks.compressed == chunks.count && chunks.skipped == 0, "\(chunks)")
        #expect(summary.addedBytes < Int64(content.count / 3), "\(summary.addedBytes) bytes")
        #expect(try fixture.restore(summary.id)["report.pdf"] == content)
    }

    @Test("a chunk shorter than the sampled size is deflated whole whatever it holds")
    func shortChunksAreNotSampled() throws {
        let fixture = try BackupFixture()
        let (summary, chunks) = try Self.backUp(
            fixture, [("short.txt", Self.text(100_000, seed: 2)), ("noise.bin", BackupFixture.bytes(100_000, seed: 4))])
        #expect(chunks.skipped == 0, "\(chunks)")
        #expect(chunks.compressed > 0 && chunks.compressedInVain > 0, "\(chunks)")
        let restored = try fixture.restore(summary.id)
        #expect(restored["short.txt"] == Self.text(100_000, seed: 2))
        #expect(restored["noise.bin"] == BackupFixture.bytes(100_000, seed: 4))
    }

    @Test("content repeated in one snapshot is compressed and sealed once, by the first job to claim it")
    func repeatedContentIsSealedOnce() throws {
        let fixture = try BackupFixture(options: BackupOptions())
        // One chunk (under the minimum), in 16 files handed over back to back: jobs of the same content run at once.
        let content = Self.text(200 << 10, seed: 5)
        let files = (0..<16).map { ("copy-\($0).pdf", content) }
        let (summary, chunks) = try Self.backUp(fixture, files)
        #expect(chunks.count == 16)
        #expect(chunks.sealed == 1, "\(chunks)")
        #expect(chunks.known == 15, "\(chunks)")
        #expect(summary.addedBlobs == 1)
        let restored = try fixture.restore(summary.id)
        for (name, _) in files { #expect(restored[name] == content) }
        // The next snapshot finds it in the index: nothing is sealed again.
        let (_, again) = try Self.backUp(fixture, [("copy-again.pdf", content)])
        #expect(again.sealed == 0 && again.known == 1, "\(again)")
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

import Foundation
import StrataBackup
import StrataCore
import StrataTestSupport
import Testing

/// How chunks become blobs and packs: which chunks are kept compressed, and packs handed to the disk while they
/// are written.
@Suite("Backup: compression and pack writing")
struct BackupPackWritingTests {
    /// 16-bit samples of a slow random walk, as audio: deflate saves some 3% of it.
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

    @Test("a chunk that compresses by a few percent is kept compressed, and restores as it was")
    func slightlyCompressibleChunksAreKeptCompressed() throws {
        let fixture = try BackupFixture(options: BackupOptions())
        let content = Self.audio(4 << 20, seed: 1_000_000)
        let summary = try fixture.backUp([("audio.wav", content)])
        // Stored as it is, the packs would hold the content and then some (nonces, tags, headers).
        #expect(summary.addedBytes < Int64(content.count - content.count / 64), "\(summary.addedBytes) bytes")
        #expect(try fixture.restore(summary.id)["audio.wav"] == content)
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

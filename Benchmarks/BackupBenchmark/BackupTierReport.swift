import BenchmarkKit
import Foundation
import Strata
import StrataBackup
import StrataCore
import StrataSystem

/// `--backup-tiers`: the first backup run through a timing sink, then its wall and CPU time and each tier's share
/// printed on standard error (standard output carries the step's numbers). What the library does inside a stage is
/// measured from outside, with a profiler (Documentation/Benchmarks.md).
enum BackupTierReport {
    /// Backs `storage` up into `repository` as `Storage.backup(to:)` does, timing each tier's capture.
    static func backup(_ storage: Storage, to repository: BackupRepository) throws -> StoreBackup {
        let started = ContinuousClock.now
        let cpuBefore = Bench.cpuSeconds
        let threadBefore = Sys.threadCPUNanoseconds()
        let writer = try repository.beginSnapshot()
        let sink = TierTimingSink(writer)
        let backup = try storage.backup(into: writer, through: sink)
        let wall = seconds(ContinuousClock.now - started)
        let cpu = Bench.cpuSeconds - cpuBefore
        let threadCPU = Double(Sys.threadCPUNanoseconds() - threadBefore) / 1e9
        var lines = [
            String(
                format: "backup: wall %.2f s, CPU %.2f s (user + system): %.2f of %d cores busy; the capture's "
                    + "thread (the tiers and the writer) %.2f s of it", wall, cpu, cpu / wall,
                ProcessInfo.processInfo.activeProcessorCount, threadCPU),
            "  capture, per tier: files, MiB, the tier's own work before handing each file over, the writer's time",
        ]
        for (tier, totals) in sink.totals {
            lines.append(
                "    " + pad(tier, 9)
                    + String(
                        format: " %6d files %8.1f MiB   capture %6.2f s   writer %6.2f s",
                        totals.files, Double(totals.bytes) / 1_048_576, seconds(totals.capture), seconds(totals.writer))
            )
        }
        lines.append(
            "  \(backup.snapshot.fileCount) files, \(backup.snapshot.addedBlobs) blobs added "
                + "(\(mebibytes(Int(backup.snapshot.addedBytes))) written); for the stages within, see "
                + "Documentation/Benchmarks.md (perf record)")
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        return backup
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}

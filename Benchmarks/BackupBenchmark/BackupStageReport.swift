import BenchmarkKit
import Foundation
import Strata
import StrataBackup
import StrataCore
import StrataSystem

/// `--backup-stages`: the first backup run with the writer's stage clock (``BackupStages``) and a timing sink,
/// then where its time went printed on standard error (standard output carries the step's numbers).
enum BackupStageReport {
    /// Backs `storage` up into `repository` as `Storage.backup(to:)` does, timing every stage.
    static func backup(_ storage: Storage, to repository: BackupRepository) throws -> StoreBackup {
        let started = ContinuousClock.now
        let cpuBefore = Bench.cpuSeconds
        let threadBefore = Sys.threadCPUNanoseconds()
        let writer = try repository.beginSnapshot()
        let stages = BackupStages()
        writer.stages = stages
        let sink = TierTimingSink(writer)
        let backup = try storage.backup(into: writer, through: sink)
        let wall = seconds(ContinuousClock.now - started)
        let cpu = Bench.cpuSeconds - cpuBefore
        let threadCPU = Double(Sys.threadCPUNanoseconds() - threadBefore) / 1e9
        var lines = [
            String(
                format: "backup stages: wall %.2f s, CPU %.2f s (user + system): %.2f of %d cores busy; the capture's "
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
        let spent = stages.spent
        let chunks = stages.chunks
        for onWorkers in [false, true] {
            lines.append(
                onWorkers
                    ? "  the workers (summed over every worker):   CPU, wall"
                    : "  the writer's thread:                      CPU, wall")
            var sum = BackupStages.Spent()
            for stage in BackupStages.Stage.allCases where stage.isWorker == onWorkers {
                let value = spent[stage] ?? BackupStages.Spent()
                sum.cpu += value.cpu
                sum.wall += value.wall
                lines.append(
                    "    " + pad(stage.name, 28)
                        + String(format: " %6.2f s %7.2f s", seconds(value.cpu), seconds(value.wall)))
            }
            lines.append(
                "    " + pad("sum", 28)
                    + String(
                        format: " %6.2f s %7.2f s (CPU: %.2f cores over the wall)", seconds(sum.cpu),
                        seconds(sum.wall), seconds(sum.cpu) / wall))
        }
        lines.append(
            "  chunks: \(chunks.count) cut (\(mebibytes(chunks.bytes))); \(chunks.known) known; "
                + "\(chunks.sealed) sealed, \(backup.snapshot.addedBlobs) stored; \(chunks.compressed) compressed "
                + "(\(mebibytes(chunks.compressedBytes)) to \(mebibytes(chunks.compressedOutput))); "
                + "\(chunks.compressedInVain) deflated in vain; \(chunks.skipped) stored on the sample's word "
                + "(\(mebibytes(chunks.skippedBytes))); \(chunks.packs) packs")
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

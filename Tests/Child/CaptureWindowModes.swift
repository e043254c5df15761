import Foundation
import Strata
import StrataBackup

/// The child modes that measure how long writers wait for a backup (not a test: a measurement, run by hand, see
/// `Documentation/Backup.md`, "Capture and restore"); `false` when `arguments` names none of them.
///
/// `window-fill ROOT MIB`: puts MIB files of 1 MiB of random bytes (`bulk/N`) and 100 records through a `Storage`.
///
/// `window-putter ROOT SECONDS`: puts a small value to a file and a record, alternately, through a `Storage` for
/// SECONDS, timing each put; says `puts N max-ms M p99-ms P` at the end.
///
/// `window-backup ROOT REPO`: creates the repository REPO (passphrase `window`, minimum cost) and backs the store up
/// into it; says `backup-seconds S files N bytes B`.
func runCaptureWindowMode(_ arguments: [String]) throws -> Bool {
    switch (arguments.first, arguments.count) {
    case ("window-fill", 3):
        let storage = try Storage(root: arguments[1])
        var generator = SystemRandomNumberGenerator()
        for index in 0..<(Int(arguments[2]) ?? 200) {
            let bytes = Data((0..<(1 << 17)).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
            try storage.put(bytes, for: "bulk/\(index)", as: DataDescriptor(kind: .file, estimatedSize: bytes.count))
        }
        for index in 0..<100 {
            try storage.put(
                Data("{\"n\":\(index)}".utf8), for: "record/\(index)",
                as: DataDescriptor(kind: .structured, estimatedSize: 16, isQueried: true))
        }
        say("filled")
    case ("window-putter", 3):
        let storage = try Storage(root: arguments[1])
        let seconds = Double(arguments[2]) ?? 10
        let descriptors = [
            DataDescriptor(kind: .file, estimatedSize: 64),
            DataDescriptor(kind: .structured, estimatedSize: 64, isQueried: true),
        ]
        var latencies: [Double] = []
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            let before = Date()
            try storage.put(
                Data("{\"n\":\(latencies.count)}".utf8), for: "window/\(latencies.count % 2)",
                as: descriptors[latencies.count % 2])
            latencies.append(Date().timeIntervalSince(before) * 1000)
        }
        let sorted = latencies.sorted()
        let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        say(String(format: "puts %d max-ms %.1f p99-ms %.1f", sorted.count, sorted.last ?? 0, p99))
    case ("window-backup", 3):
        let storage = try Storage(root: arguments[1])
        let repository = try BackupRepository.create(
            at: arguments[2], key: .passphrase("window", cost: .minimumForTests))
        let start = Date()
        let backup = try storage.backup(to: repository)
        say(
            String(
                format: "backup-seconds %.2f files %d bytes %lld", Date().timeIntervalSince(start),
                backup.capture.fileCount, backup.capture.byteCount))
    default:
        return false
    }
    return true
}

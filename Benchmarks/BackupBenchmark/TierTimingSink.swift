import StrataBackup
import StrataCore
import StrataSystem

/// A capture sink for `--backup-tiers`: passes every file on to the snapshot being written, and adds up per tier
/// the files, their bytes, the time the tier's capture took before handing each file over (opening, locking, the
/// SQLite online backup) and the time the writer took to store it.
final class TierTimingSink: CaptureSink {
    /// One tier's totals.
    struct Totals {
        var files = 0
        var bytes: Int64 = 0
        var capture: Duration = .zero
        var writer: Duration = .zero
    }

    private let writer: SnapshotWriter
    /// Per tier name (`store` for the store's own files), in the order first seen.
    private(set) var totals: [(tier: String, totals: Totals)] = []
    private var last = ContinuousClock.now

    init(_ writer: SnapshotWriter) { self.writer = writer }

    func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        try timed(file) { try writer.add(file, contentsOf: descriptor) }
    }

    func add(_ file: CapturedFile, contents: [UInt8]) throws {
        try timed(file) { try writer.add(file, contents: contents) }
    }

    private func timed(_ file: CapturedFile, _ body: () throws -> Void) throws {
        let start = ContinuousClock.now
        defer {
            let end = ContinuousClock.now
            let name = file.tier.map { "\($0)" } ?? "store"
            if !totals.contains(where: { $0.tier == name }) { totals.append((name, Totals())) }
            let index = totals.firstIndex { $0.tier == name }!
            totals[index].totals.files += 1
            totals[index].totals.bytes += file.size
            totals[index].totals.capture += start - last
            totals[index].totals.writer += end - start
            last = end
        }
        try body()
    }
}

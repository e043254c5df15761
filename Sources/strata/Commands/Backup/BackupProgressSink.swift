import Foundation
import Strata
import StrataSystem

/// What `strata backup` hands the store's capture: every file goes on to the snapshot being written, and the bytes
/// captured so far go to the progress line. Before each file it asks whether a signal asked to stop, and stops the
/// capture by throwing `cancelled` (the snapshot is then abandoned: nothing is committed).
final class BackupProgressSink: CaptureSink {
    private let writer: SnapshotWriter
    private let progress: ProgressReporter
    private let isCancelled: () -> Bool
    private var total: Int
    private var done = 0

    /// - Parameters:
    ///   - writer: The snapshot the files go to.
    ///   - progress: Where the bytes done are shown.
    ///   - total: The bytes expected (an estimate: see ``estimatedSize(of:)``).
    ///   - isCancelled: Whether to stop before the next file.
    init(_ writer: SnapshotWriter, progress: ProgressReporter, total: Int, isCancelled: @escaping () -> Bool) {
        self.writer = writer
        self.progress = progress
        self.total = total
        self.isCancelled = isCancelled
    }

    func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws {
        try stopIfCancelled()
        try writer.add(file, contentsOf: descriptor)
        advance(file)
    }

    func add(_ file: CapturedFile, contents: [UInt8]) throws {
        try stopIfCancelled()
        try writer.add(file, contents: contents)
        advance(file)
    }

    /// Reports the capture complete: what it read is the total (the estimate counted files it does not read).
    func finish() {
        progress.update(done: done, total: done)
    }

    private func stopIfCancelled() throws {
        if isCancelled() { throw StorageError(.cancelled, "stopped by a signal; no snapshot was committed") }
    }

    private func advance(_ file: CapturedFile) {
        done += Int(file.size)
        total = max(total, done)
        progress.update(done: done, total: total, entry: file.path)
    }

    /// The size of the regular files under `root`: about what the capture reads (a record store on PostgreSQL
    /// is not under the root, and a capture copies the SQLite database rather than its write-ahead log).
    static func estimatedSize(of root: String) -> Int {
        guard
            let walker = FileManager.default.enumerator(
                at: URL(fileURLWithPath: root), includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { return 0 }
        var size = 0
        for case let url as URL in walker {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]),
                values.isRegularFile == true
            else { continue }
            size += values.fileSize ?? 0
        }
        return size
    }
}

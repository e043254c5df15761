// `strata-bench-secrets --flush [--dirty]`: the ways to make two new small files durable with one wait for the
// disk (an item and its manifest), timed against the raw atomic replace of one file. With `--dirty`, a thread
// keeps rewriting a 512 MiB file on the same file system without syncing it, as another program would: `syncfs`
// then waits for that data too.
import BenchmarkKit
import Foundation
import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One way to flush the temporary files of a set before their renames.
enum FlushStrategy: String, CaseIterable {
    /// The baseline: one file, `fsync`, rename, folder `fsync`.
    case oneFile = "one file: fsync (the raw baseline)"
    /// Today's set before issue 18: the item replaced whole, then the manifest (three flushes).
    case threeFlushes = "two files, one after the other (three flushes)"
    /// `syncfs` of the file system holding both.
    case syncfs = "two files: syncfs"
    /// `fdatasync` of each, one after the other.
    case fdatasyncBoth = "two files: fdatasync each"
    /// `sync_file_range(WRITE)` of both, then `fdatasync` of each, one after the other (the set before issue 18 item 4).
    case writebackThenFdatasync = "two files: sync_file_range both, then fdatasync each"
    /// `sync_file_range(WRITE)` of both, then `fdatasync` of each at the same time, on two threads (what
    /// `AtomicFile.writeAll` does for a few files).
    case writebackThenConcurrentFdatasync = "two files: sync_file_range both, fdatasync each at once"

    /// Replaces `a` (and `m`, but for the baseline) in `folder` once, this way.
    func replace(in folder: Int32, item: [UInt8], manifest: [UInt8]) {
        func create(_ name: String, _ bytes: [UInt8]) -> Int32 {
            let fd = openat(folder, name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            return fd
        }
        switch self {
        case .oneFile, .threeFlushes:
            let fd = create("t.a", item)
            fsync(fd)
            close(fd)
            renameat(folder, "t.a", folder, "a")
            fsync(folder)
            guard self == .threeFlushes else { return }
            let manifestFD = create("t.m", manifest)
            fsync(manifestFD)
            close(manifestFD)
            renameat(folder, "t.m", folder, "m")
        case .syncfs, .fdatasyncBoth, .writebackThenFdatasync, .writebackThenConcurrentFdatasync:
            let itemFD = create("t.a", item)
            let manifestFD = create("t.m", manifest)
            // The seam's calls take typed descriptors; the baseline's C calls around them keep the numbers.
            let (typedItem, typedManifest) = (FileDescriptor(rawValue: itemFD), FileDescriptor(rawValue: manifestFD))
            switch self {
            case .syncfs:
                try? Sys.syncFileSystem(FileDescriptor(rawValue: folder))
            case .fdatasyncBoth:
                try? Sys.fdatasync(typedItem)
                try? Sys.fdatasync(typedManifest)
            case .writebackThenConcurrentFdatasync:
                Sys.startWriteback(typedItem, offset: 0, count: 0)
                Sys.startWriteback(typedManifest, offset: 0, count: 0)
                DispatchQueue.concurrentPerform(iterations: 2) {
                    try? Sys.fdatasync($0 == 0 ? typedItem : typedManifest)
                }
            default:
                Sys.startWriteback(typedItem, offset: 0, count: 0)
                Sys.startWriteback(typedManifest, offset: 0, count: 0)
                try? Sys.fdatasync(typedItem)
                try? Sys.fdatasync(typedManifest)
            }
            close(itemFD)
            close(manifestFD)
            renameat(folder, "t.a", folder, "a")
            fsync(folder)
            renameat(folder, "t.m", folder, "m")
        }
    }

    /// Times every strategy, interleaved over `rounds` rounds of `count` replacements each, and prints the
    /// median and the 10th percentile of each per replacement.
    static func compare(dirty: Bool, rounds: Int = 21, count: Int = 10) throws {
        let root = try Bench.temporaryFolder("secrets-flush")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = open(root, O_RDONLY | O_DIRECTORY)
        defer { close(folder) }
        let item = [UInt8](repeating: 7, count: 150)  // A 64 B secret's item file.
        let manifest = [UInt8](repeating: 9, count: 1100)  // A manifest of 40 items.
        let stop = Atomic<Bool>(false)
        let writer = Thread {
            let chunk = [UInt8](repeating: 1, count: 1 << 20)
            while dirty, !stop.load(ordering: .relaxed) {
                let fd = open(root + "/dirty", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                for _ in 0..<512 where !stop.load(ordering: .relaxed) {
                    _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                }
                close(fd)
            }
        }
        writer.start()
        if dirty { Thread.sleep(forTimeInterval: 2) }  // Let the dirty data pile up.
        var times: [FlushStrategy: [Double]] = [:]
        for _ in 0..<rounds {
            for strategy in allCases {
                let seconds = Bench.time {
                    for _ in 0..<count { strategy.replace(in: folder, item: item, manifest: manifest) }
                }
                times[strategy, default: []].append(seconds / Double(count))
            }
        }
        stop.store(true, ordering: .relaxed)
        print("Two small new files made durable before their renames\(dirty ? ", with 512 MiB kept dirty" : ""):")
        print("median and 10th percentile per replacement over \(rounds) rounds of \(count)")
        for strategy in allCases {
            let sorted = times[strategy, default: []].sorted()
            let name = strategy.rawValue.padding(toLength: 55, withPad: " ", startingAt: 0)
            print(
                "  " + name
                    + String(
                        format: " %8.0f µs  %8.0f µs", sorted[sorted.count / 2] * 1e6, sorted[sorted.count / 10] * 1e6))
        }
        Thread.sleep(forTimeInterval: 0.5)  // The writer ends its chunk.
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Frees the files a few atomic replacements replace off the writer's path: each target is opened before the
/// rename over it, so the rename drops a name, not the file, and the file is freed when that descriptor is
/// closed, on a background thread.
///
/// Freeing a file is the file system's work, not the write's: nothing the replacement promises depends on it
/// (the new file and its name are durable before, and a crash leaves the old file unreachable either way). It
/// can be slow: on a file system mounted with `discard` and no journal (ext4 on a 2-core test VM) the freed
/// block is discarded before the call that frees it returns, 0.1–2.4 ms a small file. A journaled file system
/// defers that work to its commit; this does the same for the atomic replacements that ask for it (StrataCore's
/// `AtomicFile.writeAll(in:names:...)`, and `AtomicFile.write(in:name:...)` for a defaults suite).
package enum RetiredFiles {
    /// At most this many held descriptors wait to be closed; past it, the caller closes its own.
    package static let pendingLimit = 64

    /// How many descriptors wait to be closed now.
    package static var pending: Int { waiting.load(ordering: .relaxed) }

    private static let waiting = Atomic<Int>(0)
    private static let queue = DispatchQueue(label: "strata.retired-files", qos: .utility)

    /// Opens `name` in `folder` (read-only, never through a link, never waiting on a FIFO) to keep the file alive
    /// across its replacement, or `nil` when there is nothing to keep (no such file, or it cannot be opened:
    /// the rename then frees it, as it would anyway).
    package static func hold(_ name: String, in folder: DirectoryHandle) -> FileDescriptor? {
        guard pending < pendingLimit else { return nil }
        return try? folder.openFile(name, .readOnly, .nonBlocking)
    }

    /// Closes `descriptors` (from ``hold(_:in:)``) on a background thread, which frees their files once
    /// replaced; on the calling thread when too many already wait.
    package static func release(_ descriptors: [FileDescriptor]) {
        guard !descriptors.isEmpty else { return }
        guard waiting.add(descriptors.count, ordering: .relaxed).newValue <= pendingLimit else {
            for fd in descriptors { Sys.close(fd) }
            waiting.subtract(descriptors.count, ordering: .relaxed)
            return
        }
        queue.async {
            for fd in descriptors { Sys.close(fd) }
            waiting.subtract(descriptors.count, ordering: .relaxed)
        }
    }

    /// Waits until every descriptor handed over so far is closed (for tests and benchmarks).
    package static func drain() { queue.sync {} }
}

import Foundation
import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbered places in the writes of backup and prune where a test may have the process killed with `SIGKILL`:
/// with `STRATA_BACKUP_KILL_AT=N` in the environment, the N-th place reached ends the process (after printing
/// `killed at N: label` on standard error). Each place costs one atomic add, beside a write and an `fsync`.
package enum KillPoint {
    private static let target: Int = ProcessInfo.processInfo.environment["STRATA_BACKUP_KILL_AT"].flatMap(Int.init) ?? 0
    private static let reached = Atomic<Int>(0)

    /// Counts one place; kills the process when it is the chosen one.
    package static func reach(_ label: String) {
        let count = reached.add(1, ordering: .relaxed).newValue
        if count == target {
            FileHandle.standardError.write(Data("killed at \(count): \(label)\n".utf8))
            try? Sys.sendSignal(SIGKILL, to: Sys.processID)
            Sys.raiseDefault(SIGKILL)  // Not reached: SIGKILL to oneself is delivered before kill(2) returns.
        }
    }

    /// How many places were reached so far in this process.
    package static var count: Int { reached.load(ordering: .relaxed) }
}

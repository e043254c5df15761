import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Frees whoever waits on the FIFO at a path for a writer, after a grace of five seconds, and counts them: code that
/// opens a FIFO planted in a file's place without `O_NONBLOCK` waits for a writer, and would hang the test that
/// shows it instead of failing it.
///
/// ```swift
/// let watchdog = FIFOWatchdog(path: fifo)
/// defer { #expect(watchdog.finish() == 0, "a reader waited on the FIFO") }
/// ```
public final class FIFOWatchdog: Sendable {
    private let state = Mutex((done: false, freed: 0))

    /// Starts watching the FIFO at `path` on a thread of its own.
    public init(path: String) {
        Thread { [self] in watch(path) }.start()
    }

    private func watch(_ path: String) {
        var polls = 0
        while !state.withLock({ $0.done }) {
            usleep(10_000)
            polls += 1
            guard polls >= 500 else { continue }
            let fd = open(path, O_WRONLY | O_NONBLOCK)  // Succeeds only while a reader has it open.
            if fd >= 0 {
                close(fd)
                state.withLock { $0.freed += 1 }
            }
        }
    }

    /// Stops watching; returns how many waiting readers were freed.
    public func finish() -> Int {
        state.withLock {
            $0.done = true
            return $0.freed
        }
    }
}

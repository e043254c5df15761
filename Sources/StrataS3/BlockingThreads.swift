import Foundation

/// Starts blocking work (an HTTP request) on a thread of its own, so that every request meant to be in flight
/// really is. `DispatchQueue.concurrentPerform` and the global queues size their pools by the processor count: on
/// a two-core machine they ran two requests at a time whatever the configured concurrency, because a thread
/// waiting on the network still holds its place in the pool.
enum BlockingThreads {
    /// Starts `body` on a new thread and returns at once.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }
}

import Dispatch
import Synchronization

/// Runs jobs on up to `threads` workers while the submitting thread goes on (reading the next input, writing
/// finished output), and hands the results back in submission order. At most `threads` jobs, and jobs
/// costing at most `budget` bytes together (one job alone may exceed it), are in flight, so memory stays bounded
/// whatever the input size.
///
/// The submitting thread owns it; jobs own what they capture. Waits for every job still running when it is
/// dropped after a failure, so nothing outlives the operation that started it.
package struct OrderedWork<Output>: ~Copyable {
    /// One job's result, written by its worker before `done` is signalled.
    private final class Job: @unchecked Sendable {
        // Safe without a lock: the worker writes `result` before `done.signal()`; the owner reads it only after
        // `done.wait()`.
        var result: Result<Output, any Error>?
        let done = DispatchSemaphore(value: 0)
        let cost: Int
        init(cost: Int) { self.cost = cost }
    }

    private var pending: [Job] = []
    private var head = 0
    /// The cost of the jobs submitted whose result is still held: running, done and waiting, or being consumed.
    private var inFlightCost = 0
    /// The most ``inFlightCost`` reached: at most the budget, or one job's cost when that alone exceeds it.
    package private(set) var peakCost = 0
    private let limit: Int
    private let budget: Int

    /// - Parameters:
    ///   - threads: Jobs in flight at most. None waits for another inside the queue (a blocked worker would make
    ///     Dispatch start more threads, each keeping its own allocator arena of freed buffers).
    ///   - budget: The bytes jobs in flight may hold together. The default is 64 MiB.
    package init(threads: Int, budget: Int = 64 << 20) {
        limit = max(1, threads)
        self.budget = budget
    }

    deinit {
        for job in pending[head...] { job.done.wait() }
    }

    /// Starts `work` on a worker, first handing `consume` the oldest results while the limits are reached.
    /// - Parameter cost: The bytes the job holds while it runs.
    package mutating func submit(
        cost: Int = 0, _ work: @escaping @Sendable () throws -> Output, consume: (Output) throws -> Void
    ) throws {
        while head < pending.count, pending.count - head >= limit || inFlightCost + cost > budget {
            try consumeOldest(consume)
        }
        let job = Job(cost: cost)
        inFlightCost += cost
        peakCost = max(peakCost, inFlightCost)
        pending.append(job)
        DispatchQueue.global().async {
            job.result = Result { try work() }
            job.done.signal()
        }
    }

    /// Hands `consume` every remaining result, in order.
    package mutating func finish(consume: (Output) throws -> Void) throws {
        while head < pending.count { try consumeOldest(consume) }
    }

    /// Hands `consume` the oldest job's result, then drops it: its cost counts until `consume` returns, and no
    /// job still listed in `pending` keeps its result (the list is trimmed only now and then).
    private mutating func consumeOldest(_ consume: (Output) throws -> Void) throws {
        let job = pending[head]
        job.done.wait()
        head += 1
        if head > 64 {
            pending.removeFirst(head)
            head = 0
        }
        let result = job.result!
        job.result = nil
        defer { inFlightCost -= job.cost }
        try consume(result.get())
    }
}

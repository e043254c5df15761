import Foundation
import Synchronization
import Testing

@testable import StrataFiles

/// ``OrderedWork`` keeps the bytes of its results within its budget: the results running, waiting and being
/// consumed together, and none kept once consumed.
@Suite("OrderedWork: bytes in flight")
struct OrderedWorkTests {
    /// A result that counts itself among the bytes alive while it exists.
    final class Held: Sendable {
        let bytes: Int
        let alive: Alive
        init(_ bytes: Int, alive: Alive) {
            self.bytes = bytes
            self.alive = alive
            alive.add(bytes)
        }
        deinit { alive.add(-bytes) }
    }

    /// The bytes of the results alive, and the most at once.
    final class Alive: Sendable {
        private let state = Mutex((now: 0, peak: 0))
        func add(_ bytes: Int) {
            state.withLock {
                $0.now += bytes
                $0.peak = max($0.peak, $0.now)
            }
        }
        var now: Int { state.withLock { $0.now } }
        var peak: Int { state.withLock { $0.peak } }
    }

    /// Jobs of several costs, 40 times the budget in all, on more threads than fit in the budget: the results
    /// alive (made, waiting, or being consumed; each consumed one dropped) never exceed the budget, nor does the
    /// cost the pipeline counts.
    @Test func resultsAliveStayWithinTheBudget() throws {
        let budget = 1 << 20
        let alive = Alive()
        var consumed = 0
        var peakCost = 0
        do {
            var work = OrderedWork<Held>(threads: 8, budget: budget)
            func consume(_ result: Held) {
                consumed += result.bytes
                // Time for the jobs in flight to finish and make their results while this one is held.
                usleep(2_000)
            }
            var submitted = 0
            for index in 0..<100 {
                let cost = [192 << 10, 320 << 10, 512 << 10][index % 3]
                submitted += cost
                try work.submit(cost: cost, { Held(cost, alive: alive) }, consume: consume)
            }
            try work.finish(consume: consume)
            #expect(consumed == submitted)
            peakCost = work.peakCost
        }
        #expect(alive.now == 0)
        #expect(peakCost > budget / 2)
        #expect(peakCost <= budget)
        #expect(alive.peak <= budget, "\(alive.peak) bytes alive at once for a budget of \(budget)")
    }

    /// A job costing more than the whole budget runs alone.
    @Test func aJobOverTheBudgetRunsAlone() throws {
        let budget = 1 << 20
        let alive = Alive()
        var work = OrderedWork<Held>(threads: 4, budget: budget)
        var largest = 0
        func consume(_ result: Held) {
            largest = max(largest, alive.now)
            usleep(2_000)
        }
        for cost in [256 << 10, 3 << 20, 256 << 10, 256 << 10] {
            try work.submit(cost: cost, { Held(cost, alive: alive) }, consume: consume)
        }
        try work.finish(consume: consume)
        #expect(work.peakCost == 3 << 20)
        #expect(alive.peak <= 3 << 20)
    }
}

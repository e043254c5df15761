import Synchronization

/// Adds up the time an operation spends in named stages, from any thread: the restoring thread's steps and the
/// workers' beside it. Reported in the order the stages were first timed.
package final class StageTimer: Sendable {
    private struct Totals {
        var names: [String] = []
        var times: [String: (duration: Duration, isOnWorkers: Bool)] = [:]
    }

    private let totals = Mutex(Totals())

    package init() {}

    /// Runs `body` and adds the time it took to `stage`.
    /// - Parameter isOnWorkers: Whether `body` runs on a worker thread, beside the operation's own.
    package func time<T, E: Error>(_ stage: String, isOnWorkers: Bool = false, _ body: () throws(E) -> T) throws(E) -> T
    {
        let start = ContinuousClock.now
        defer { add(stage, ContinuousClock.now - start, isOnWorkers: isOnWorkers) }
        return try body()
    }

    /// Adds `duration` to `stage`.
    package func add(_ stage: String, _ duration: Duration, isOnWorkers: Bool = false) {
        totals.withLock { totals in
            if let time = totals.times[stage] {
                totals.times[stage] = (time.duration + duration, time.isOnWorkers)
            } else {
                totals.names.append(stage)
                totals.times[stage] = (duration, isOnWorkers)
            }
        }
    }

    /// Every stage timed so far, in the order each was first timed.
    package var stages: [StageTime] {
        totals.withLock { totals in
            totals.names.map { name in
                let time = totals.times[name]!
                let (seconds, attoseconds) = time.duration.components
                return StageTime(
                    name: name, seconds: Double(seconds) + Double(attoseconds) / 1e18, isOnWorkers: time.isOnWorkers)
            }
        }
    }
}

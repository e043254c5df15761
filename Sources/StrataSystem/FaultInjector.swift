import Synchronization

/// Makes chosen system calls fail, for tests and the torture harness.
///
/// Consulted only in builds that define `STRATA_FAULT_INJECTION` (StrataSystem's debug builds, which the tests and
/// the torture harness run); a release build's seam never looks at it, and ``isCompiledIn`` is `false` there.
/// Off by default: when nothing is armed the seam pays one relaxed atomic load per call. Plans are matched by
/// path, and each belongs to the task that armed it (the test that called ``inject(_:on:pathContaining:after:times:)``):
/// ``reset()``, ``injectedCount`` and the counts of ``startCounting(pathContaining:)`` see only the calling task's
/// own plans and counts, so tests running at the same time in one process neither clear nor miscount each other's
/// faults. Code outside any task (a harness's top level) owns the plans it arms there.
package final class FaultInjector: Sendable {
    /// The injector the seam consults.
    package static let shared = FaultInjector()

    private static let armed = Atomic<Bool>(false)

    /// Whether the seam consults the injector in this build (`STRATA_FAULT_INJECTION`, set for debug builds).
    #if STRATA_FAULT_INJECTION
        package static let isCompiledIn = true
    #else
        package static let isCompiledIn = false
    #endif

    /// Whether any plan is active; checked before anything else on every call.
    package static var isArmed: Bool { armed.load(ordering: .relaxed) }

    private struct Plan {
        var owner: Int?
        var call: SystemCall
        var pathFragment: String?
        var skip: Int
        var remaining: Int
        var fault: InjectedFault
        var injected = 0
    }

    private struct Counting {
        var owner: Int?
        var pathFragment: String?
        var seen: [SystemCall: Int] = [:]
        /// The calls seen, in order.
        var sequence: [SystemCall] = []
    }

    private struct State {
        var plans: [Plan] = []
        var countings: [Counting] = []
        var isEmpty: Bool { plans.isEmpty && countings.isEmpty }
    }

    private let state = Mutex(State())

    /// The task calling, which owns the plans and counts it makes; `nil` outside any task.
    private static var owner: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Arms a fault, owned by the calling task.
    /// - Parameters:
    ///   - fault: What happens to the call.
    ///   - call: Which system call suffers it.
    ///   - pathFragment: Only calls on a path containing this string (calls without a path never match it).
    ///   - skip: How many matching calls to let through first.
    ///   - times: How many matching calls suffer it after that.
    package func inject(
        _ fault: InjectedFault, on call: SystemCall, pathContaining pathFragment: String? = nil,
        after skip: Int = 0, times: Int = 1
    ) {
        let owner = Self.owner
        state.withLock {
            $0.plans.append(
                Plan(owner: owner, call: call, pathFragment: pathFragment, skip: skip, remaining: times, fault: fault))
        }
        Self.armed.store(true, ordering: .relaxed)
    }

    /// Starts counting the system calls that pass through the seam (for ``seenCount(of:)``), for the calling task,
    /// from zero.
    /// - Parameter pathFragment: Only calls on a path containing this string; `nil` counts every call.
    package func startCounting(pathContaining pathFragment: String? = nil) {
        let owner = Self.owner
        state.withLock {
            $0.countings.removeAll { $0.owner == owner }
            $0.countings.append(Counting(owner: owner, pathFragment: pathFragment))
        }
        Self.armed.store(true, ordering: .relaxed)
    }

    /// How many calls of `call` the calling task's counting has seen since ``startCounting(pathContaining:)``.
    package func seenCount(of call: SystemCall) -> Int {
        let owner = Self.owner
        return state.withLock { state in
            state.countings.first { $0.owner == owner }?.seen[call, default: 0] ?? 0
        }
    }

    /// The calls the calling task's counting has seen since ``startCounting(pathContaining:)``, in order (to check
    /// the order of flushes and renames, say).
    package var seenCalls: [SystemCall] {
        let owner = Self.owner
        return state.withLock { state in state.countings.first { $0.owner == owner }?.sequence ?? [] }
    }

    /// How many faults the calling task's plans have injected.
    package var injectedCount: Int {
        let owner = Self.owner
        return state.withLock { state in
            state.plans.lazy.filter { $0.owner == owner }.reduce(0) { $0 + $1.injected }
        }
    }

    /// Removes the calling task's plans and counting; the seam is disarmed when no task has any left.
    package func reset() {
        let owner = Self.owner
        let isEmpty = state.withLock { state in
            state.plans.removeAll { $0.owner == owner }
            state.countings.removeAll { $0.owner == owner }
            return state.isEmpty
        }
        if isEmpty { Self.armed.store(false, ordering: .relaxed) }
    }

    func fault(for call: SystemCall, path: String?) -> InjectedFault? {
        state.withLock { state in
            for index in state.countings.indices {
                if let fragment = state.countings[index].pathFragment {
                    guard let path, path.contains(fragment) else { continue }
                }
                state.countings[index].seen[call, default: 0] += 1
                state.countings[index].sequence.append(call)
            }
            for index in state.plans.indices {
                let plan = state.plans[index]
                guard plan.call == call, plan.remaining > 0 else { continue }
                if let fragment = plan.pathFragment {
                    guard let path, path.contains(fragment) else { continue }
                }
                if plan.skip > 0 {
                    state.plans[index].skip -= 1
                    continue
                }
                state.plans[index].remaining -= 1
                state.plans[index].injected += 1
                return plan.fault
            }
            return nil
        }
    }
}

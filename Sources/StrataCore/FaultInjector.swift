import Synchronization

/// The system calls that pass through ``Sys`` and can have faults injected.
package enum SystemCall: String, Sendable, Hashable, CaseIterable {
    case open, read, write, fsync, rename, unlink, mkdir, ftruncate, lock, chmod, stat
    case link
    case map
    case terminal
    case writeback
}

/// A fault that ``FaultInjector`` makes a system call suffer.
package enum InjectedFault: Sendable, Hashable {
    /// The call fails with this `errno` (for example `ENOSPC` or `EIO`).
    case error(Int32)
    /// The call is interrupted once (`EINTR`); the seam must retry it.
    case interrupt
    /// A `write` writes at most this many bytes.
    case shortWrite(Int)
}

/// Makes chosen system calls fail, for tests and the torture harness.
///
/// Off by default: when nothing is armed the seam pays one relaxed atomic load per call. The plans are global
/// to the process, so tests that arm faults must not run concurrently with other file system tests in the
/// same process (the torture harness runs them in a child process).
package final class FaultInjector: Sendable {
    /// The injector the seam consults.
    package static let shared = FaultInjector()

    private static let armed = Atomic<Bool>(false)

    /// Whether any plan is active; checked before anything else on every call.
    package static var isArmed: Bool { armed.load(ordering: .relaxed) }

    private struct Plan {
        var call: SystemCall
        var pathFragment: String?
        var skip: Int
        var remaining: Int
        var fault: InjectedFault
    }

    private struct State {
        var plans: [Plan] = []
        var injected = 0
        var seen: [SystemCall: Int] = [:]
    }

    private let state = Mutex(State())

    /// Arms a fault.
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
        state.withLock {
            $0.plans.append(Plan(call: call, pathFragment: pathFragment, skip: skip, remaining: times, fault: fault))
        }
        Self.armed.store(true, ordering: .relaxed)
    }

    /// Starts counting calls (see ``seenCount(of:)``) without injecting anything.
    package func startCounting() {
        state.withLock { $0.seen = [:] }
        Self.armed.store(true, ordering: .relaxed)
    }

    /// How many calls of a kind passed through the seam while armed.
    package func seenCount(of call: SystemCall) -> Int {
        state.withLock { $0.seen[call, default: 0] }
    }

    /// How many faults were injected since the last ``reset()``.
    package var injectedCount: Int { state.withLock { $0.injected } }

    /// Removes every plan and disarms the seam.
    package func reset() {
        state.withLock { $0 = State() }
        Self.armed.store(false, ordering: .relaxed)
    }

    /// The fault this call suffers, if any; consumes one use of the matching plan.
    func fault(for call: SystemCall, path: String?) -> InjectedFault? {
        state.withLock { state in
            state.seen[call, default: 0] += 1
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
                state.injected += 1
                return plan.fault
            }
            return nil
        }
    }
}

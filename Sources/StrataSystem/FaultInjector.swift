import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes chosen system calls fail, for tests and the torture harness.
///
/// Consulted only in builds that define `STRATA_FAULT_INJECTION` (StrataSystem's debug builds, which the tests and
/// the torture harness run); a release build's seam never looks at it, and ``isCompiledIn`` is `false` there.
/// Off by default: when nothing is armed the seam pays one relaxed atomic load per call. Plans are matched by
/// path, and each belongs to the task that armed it (the test that called ``inject(_:on:pathContaining:after:times:)``):
/// ``reset()``, ``injectedCount`` and the counts of ``startCounting(pathContaining:)`` see only the calling task's
/// own plans and counts, so tests running at the same time in one process neither clear nor miscount each other's
/// faults. Code outside any task (a harness's top level) owns the plans it arms there.
///
/// A test that kills a real process (a child, the `strata` tool) arms it through the environment, read once, in
/// those builds only: `STRATA_FAULT_KILL=CALLS:N:FRAGMENT` kills the process with `SIGKILL` before the N-th call
/// (counted from 1) of any of `CALLS` (`SystemCall` names, comma-separated: `rename,fsync,link,unlink`) on a path
/// containing `FRAGMENT` (the rest of the value, `:` included; empty: every call of those kinds). The process first
/// writes `STRATA_FAULT_KILL: killed before call N, rename of PATH` on standard error; one that ends without reaching
/// the N-th call (N = 0 never kills) writes `STRATA_FAULT_KILL: M calls matched, none killed` as it exits, so a test
/// learns how many steps a run has and can then kill at each of them.
package final class FaultInjector: Sendable {
    /// The injector the seam consults, with the kill the environment asks for, if any.
    package static let shared = FaultInjector(environmentKill)

    private static let armed = Atomic<Bool>(environmentKill != nil)

    /// The environment variable a test arms a kill with (see above); read only where fault injection is compiled in.
    package static let killVariable = "STRATA_FAULT_KILL"

    /// The kill ``killVariable`` asks for, read once.
    private static let environmentKill: Plan? = {
        #if STRATA_FAULT_INJECTION
            guard let value = getenv(killVariable).map({ String(cString: $0) }) else { return nil }
            guard let plan = Plan(killing: value) else {
                report("cannot read \(killVariable)=\(value); expected CALLS:N:FRAGMENT, as rename,fsync:3:/repo")
                _exit(2)
            }
            atexit { FaultInjector.shared.reportEnvironmentKill() }
            return plan
        #else
            return nil
        #endif
    }()

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
        var calls: Set<SystemCall>
        var pathFragment: String?
        var skip: Int
        var remaining: Int
        var fault: InjectedFault
        var injected = 0
        /// The calls that matched `calls` and `pathFragment`, injected or not.
        var matched = 0
        /// Whether it is the kill ``killVariable`` armed.
        var isFromEnvironment = false

        init(
            owner: Int?, calls: Set<SystemCall>, pathFragment: String?, skip: Int, remaining: Int,
            fault: InjectedFault
        ) {
            self.owner = owner
            self.calls = calls
            self.pathFragment = pathFragment
            self.skip = skip
            self.remaining = remaining
            self.fault = fault
        }

        /// The kill a ``killVariable`` value asks for: `CALLS:N:FRAGMENT`; `nil` when it does not read as one.
        init?(killing value: String) {
            let parts = value.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let point = Int(parts[1]), point >= 0 else { return nil }
            let names = parts[0].split(separator: ",")
            let calls = Set(names.compactMap { SystemCall(rawValue: String($0)) })
            guard !calls.isEmpty, calls.count == names.count else { return nil }
            self.init(
                owner: nil, calls: calls, pathFragment: parts[2].isEmpty ? nil : String(parts[2]),
                skip: max(0, point - 1), remaining: point == 0 ? 0 : 1, fault: .kill)
            isFromEnvironment = true
        }

        func matches(_ call: SystemCall, path: String?) -> Bool {
            guard calls.contains(call) else { return false }
            guard let pathFragment else { return true }
            guard let path else { return false }
            return path.contains(pathFragment)
        }
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

    private let state: Mutex<State>

    private init(_ environmentKill: Plan?) {
        state = Mutex(State(plans: environmentKill.map { [$0] } ?? []))
    }

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
        inject(fault, on: [call], pathContaining: pathFragment, after: skip, times: times)
    }

    /// Arms a fault for any of several calls, counted together (the third `rename` or `fsync`, say), owned by the
    /// calling task.
    package func inject(
        _ fault: InjectedFault, on calls: Set<SystemCall>, pathContaining pathFragment: String? = nil,
        after skip: Int = 0, times: Int = 1
    ) {
        let owner = Self.owner
        state.withLock {
            $0.plans.append(
                Plan(
                    owner: owner, calls: calls, pathFragment: pathFragment, skip: skip, remaining: times,
                    fault: fault))
            Self.armed.store(true, ordering: .relaxed)  // Under the lock: see reset().
        }
    }

    /// Starts counting the system calls that pass through the seam (for ``seenCount(of:)``), for the calling task,
    /// from zero.
    /// - Parameter pathFragment: Only calls on a path containing this string; `nil` counts every call.
    package func startCounting(pathContaining pathFragment: String? = nil) {
        let owner = Self.owner
        state.withLock {
            $0.countings.removeAll { $0.owner == owner }
            $0.countings.append(Counting(owner: owner, pathFragment: pathFragment))
            Self.armed.store(true, ordering: .relaxed)  // Under the lock: see reset().
        }
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
        state.withLock { state in
            state.plans.removeAll { $0.owner == owner }
            state.countings.removeAll { $0.owner == owner }
            // Disarmed under the lock that arming takes too: disarming after it, a reset that found nothing left
            // could land after another task armed a plan, and that plan would never fire.
            if state.isEmpty { Self.armed.store(false, ordering: .relaxed) }
        }
    }

    /// The fault `call` on `path` suffers, if any; a `.kill` ends the process here instead.
    func fault(for call: SystemCall, path: String?) -> InjectedFault? {
        let found = findFault(for: call, path: path)
        if let (fault, ordinal) = found, fault == .kill { Self.kill(before: call, path: path, ordinal: ordinal) }
        return found?.fault
    }

    /// The fault of the first plan that `call` on `path` triggers, and how many calls that plan had matched.
    private func findFault(for call: SystemCall, path: String?) -> (fault: InjectedFault, ordinal: Int)? {
        state.withLock { state in
            for index in state.countings.indices {
                if let fragment = state.countings[index].pathFragment {
                    guard let path, path.contains(fragment) else { continue }
                }
                state.countings[index].seen[call, default: 0] += 1
                state.countings[index].sequence.append(call)
            }
            for index in state.plans.indices {
                guard state.plans[index].matches(call, path: path) else { continue }
                state.plans[index].matched += 1
                let plan = state.plans[index]
                guard plan.remaining > 0 else { continue }
                if plan.skip > 0 {
                    state.plans[index].skip -= 1
                    continue
                }
                state.plans[index].remaining -= 1
                state.plans[index].injected += 1
                return (plan.fault, plan.matched)
            }
            return nil
        }
    }

    /// Ends the process with `SIGKILL`, after naming the call on standard error.
    private static func kill(before call: SystemCall, path: String?, ordinal: Int) -> Never {
        report("killed before call \(ordinal), \(call.rawValue) of \(path ?? "no path")")
        try? Sys.sendSignal(SIGKILL, to: Sys.processID)
        Sys.raiseDefault(SIGKILL)  // Not reached: SIGKILL to oneself is delivered before kill(2) returns.
    }

    /// At exit, when the environment's kill never fired: how many calls it matched.
    private func reportEnvironmentKill() {
        let matched = state.withLock { state in state.plans.first { $0.isFromEnvironment }?.matched }
        if let matched { Self.report("\(matched) calls matched, none killed") }
    }

    /// Writes `STRATA_FAULT_KILL: message` on standard error, with one `write(2)`.
    private static func report(_ message: String) {
        let line = Array("\(killVariable): \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

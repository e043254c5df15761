/// A crash at one system call of a child process: `STRATA_FAULT_KILL` in its environment (honoured by debug builds,
/// which the tests run) has it send itself `SIGKILL` before the N-th of `calls` on a path containing `pathFragment`.
///
/// A run armed at point 0 kills nothing and reports how many calls matched; the test then kills a run at each
/// point, or at points spread over them:
///
/// ```swift
/// let kill = FaultKill(on: repository)
/// let total = try #require(FaultKill.matchedCalls(in: run(kill.environment(at: 0)).standardError))
/// for point in FaultKill.spread(50, over: total) { let killed = run(kill.environment(at: point)) ... }
/// ```
public struct FaultKill: Sendable {
    /// The calls that change what a folder holds: a file's bytes, its flush, and names made or removed.
    public static let durableCalls = ["write", "fsync", "rename", "link", "unlink", "mkdir"]

    /// The calls counted (`SystemCall` names).
    public var calls: [String]
    /// Only calls on a path containing this count.
    public var pathFragment: String

    /// A kill at `calls` on paths containing `pathFragment`.
    public init(_ calls: [String] = FaultKill.durableCalls, on pathFragment: String) {
        self.calls = calls
        self.pathFragment = pathFragment
    }

    /// The environment that kills the child before matching call `point` (from 1); 0 kills nothing and counts.
    public func environment(at point: Int) -> [String: String] {
        ["STRATA_FAULT_KILL": calls.joined(separator: ",") + ":\(point):" + pathFragment]
    }

    /// How many calls a run that was not killed matched, from its standard error.
    public static func matchedCalls(in standardError: String) -> Int? {
        line(in: standardError, after: "STRATA_FAULT_KILL: ").flatMap { line in
            line.hasSuffix(" calls matched, none killed") ? Int(line.prefix { $0.isNumber }) : nil
        }
    }

    /// The call a killed run died before (`rename of /path`), from its standard error.
    public static func killedCall(in standardError: String) -> String? {
        line(in: standardError, after: "STRATA_FAULT_KILL: killed before call ").map { line in
            String(line.drop { $0 != "," }.dropFirst(2))
        }
    }

    /// At most `count` points spread evenly over `1...total`, the first and the last included: every point when
    /// there are no more than `count`.
    public static func spread(_ count: Int, over total: Int) -> [Int] {
        guard total > count else { return Array(stride(from: 1, through: total, by: 1)) }
        guard count > 1 else { return [total] }
        return (0..<count).map { 1 + $0 * (total - 1) / (count - 1) }
    }

    private static func line(in text: String, after prefix: String) -> Substring? {
        text.split(separator: "\n").last { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count) }
    }
}

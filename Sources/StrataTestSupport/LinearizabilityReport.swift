/// What ``LinearizabilityChecker`` found in a history: the keys checked, those whose history has no order (with why)
/// and those whose search ran out of budget.
public struct LinearizabilityReport: Sendable, CustomStringConvertible {
    /// How many keys the history holds.
    public var keyCount: Int
    /// How many operations it holds.
    public var operationCount: Int
    /// The keys whose history is not linearizable, in key order.
    public var failures: [LinearizabilityFailure]
    /// The keys the search could not decide within its budget, in key order.
    public var undecidedKeys: [String]

    /// Whether every key's history was shown linearizable.
    public var isLinearizable: Bool { failures.isEmpty && undecidedKeys.isEmpty }

    public var description: String {
        var lines = [
            "\(operationCount) operations on \(keyCount) keys: \(failures.count) not linearizable, "
                + "\(undecidedKeys.count) undecided"
        ]
        if !undecidedKeys.isEmpty { lines.append("undecided (budget exhausted): \(undecidedKeys)") }
        lines += failures.map(\.description)
        return lines.joined(separator: "\n")
    }
}

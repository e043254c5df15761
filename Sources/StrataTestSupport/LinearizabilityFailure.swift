import Foundation

/// Why one key's history is not linearizable: the first response no order of the operations before it can explain,
/// the longest order the search found up to there, and the operations it could not place.
public struct LinearizabilityFailure: Sendable, CustomStringConvertible {
    /// The key.
    public var key: String
    /// The operation whose response first makes the history impossible: every shorter prefix of responses has an
    /// order, the prefix ending with this one has none.
    public var culprit: LinearizabilityOperation
    /// The shortest prefix that fails: the operations invoked by the culprit's response (those still running then
    /// counted as unanswered by the search, shown here as the whole history has them).
    public var prefix: [LinearizabilityOperation]
    /// The longest sequence of the prefix's operations the search could order, in that order.
    public var longestOrder: [LinearizabilityOperation]
    /// The prefix's answered operations left out of ``longestOrder``.
    public var unplaced: [LinearizabilityOperation]
    /// How many operations of the key the whole history holds.
    public var operationCount: Int

    /// How many lines of ``longestOrder`` the description shows (its end).
    public static let shownOrder = 16

    public var description: String {
        let origin = prefix.map(\.invoked).min() ?? 0
        let end = culprit.responded ?? .max
        func line(_ operation: LinearizabilityOperation) -> String {
            let running = !operation.isDetermined || operation.responded! > end
            return operation.text(after: origin) + (running ? " (still running then)" : "")
        }
        var lines = [
            "key \"\(key)\" is not linearizable (\(operationCount) operations): the first \(prefix.count) cannot be "
                + "ordered once this response arrives:",
            "  " + culprit.text(after: origin),
            "longest order found (\(longestOrder.count) operations\(longestOrder.count > Self.shownOrder ? ", the last \(Self.shownOrder)" : "")):",
        ]
        let skipped = max(0, longestOrder.count - Self.shownOrder)
        for (index, operation) in longestOrder.enumerated().dropFirst(skipped) {
            lines.append("  \(index + 1). " + line(operation))
        }
        lines.append("answered operations that order leaves out:")
        for operation in unplaced { lines.append("  " + line(operation)) }
        lines.append("(times in ms after the prefix's first invocation)")
        return lines.joined(separator: "\n")
    }
}

extension PropertyListValue {
    /// How large a value is once expanded: what ``PropertyListLimits`` bound.
    struct Footprint: Sendable, Hashable {
        /// The ``PropertyListValue/encodedSizeEstimate``.
        var size: Int
        /// How many values: containers, dictionary keys and scalars, each counted every place it appears.
        var nodes: Int
        /// The depth of its deepest value below it: 0 for a scalar or an empty container, 1 for a container of
        /// scalars.
        var height: Int
        /// Whether the walk saw the whole value (it stops once past its node limit).
        var isComplete = true

        /// Adds a child's footprint to its container's (`self`), refusing the document as soon as the sum is
        /// over the limits (so a shared reference is never walked, only counted).
        mutating func add(_ child: Footprint, at offset: Int, within limits: PropertyListLimits)
            throws(PropertyListError)
        {
            size = PropertyListValue.saturatingSum(size, child.size)
            nodes = PropertyListValue.saturatingSum(nodes, child.nodes)
            height = max(height, child.height + 1)
            if let excess = excess(over: limits) { throw PropertyListError(excess, offset: offset) }
        }

        /// Whether the value is within the limits.
        func isWithin(_ limits: PropertyListLimits) -> Bool {
            isComplete && size <= limits.maximumExpandedSize && nodes <= limits.maximumNodeCount
                && height <= limits.maximumDepth
        }

        /// What is over the limits, for an error message; `nil` when nothing is.
        func excess(over limits: PropertyListLimits) -> String? {
            if height > limits.maximumDepth { return "nesting deeper than \(limits.maximumDepth) levels" }
            if !isComplete || nodes > limits.maximumNodeCount {
                return "more than \(limits.maximumNodeCount) values once shared references are expanded"
            }
            if size > limits.maximumExpandedSize {
                return "more than \(limits.maximumExpandedSize) bytes once shared references are expanded"
            }
            return nil
        }
    }

    /// Measures the value without recursion (its own stack), stopping after `limit` values so that even a
    /// value built in memory with shared subtrees (`Array(repeating: deep, count: 8)`, nested) costs at most
    /// `limit` steps. Sums saturate rather than overflow.
    func footprint(upToNodes limit: Int) -> Footprint {
        var result = Footprint(size: 0, nodes: 0, height: 0)
        var pending: [(value: PropertyListValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            guard result.nodes < limit else {
                result.isComplete = false
                break
            }
            result.nodes += 1
            result.size = Self.saturatingSum(result.size, Self.ownSize(value))
            result.height = max(result.height, depth)
            switch value {
            case .array(let items):
                for item in items { pending.append((item, depth + 1)) }
            case .dictionary(let items):
                result.nodes = Self.saturatingSum(result.nodes, items.count)
                for item in items.values { pending.append((item, depth + 1)) }
            default:
                break
            }
        }
        return result
    }

    /// `a + b`, or `Int.max` when that overflows.
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}

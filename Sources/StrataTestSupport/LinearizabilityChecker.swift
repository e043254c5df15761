/// Checks that a concurrent history of reads and writes of keys is linearizable: that each operation can be given
/// one instant between its invocation and its response such that, in the order of those instants, every answer is
/// what a register per key (no value, or one value) would give.
///
/// Linearizability is local, so each key is checked alone (``LinearizabilitySearch``). An operation without a
/// response, or answered with an error, may have taken effect at any moment after its invocation, or never. When a
/// key fails, the checker finds the shortest prefix of its responses that fails too, so the report shows the first
/// answer no order explains rather than the whole history.
public struct LinearizabilityChecker: Sendable {
    /// A history the checker cannot read: an answer of the wrong kind, or a response before its invocation.
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// The most search steps spent on one key (each step takes, skips or undoes one operation) before its history
    /// is reported undecided.
    public var budget: Int

    public init(budget: Int = 20_000_000) {
        self.budget = budget
    }

    /// Checks every key of `history`.
    /// - Throws: ``Malformed`` when an operation's response does not fit its call, or precedes its invocation.
    public func check(_ history: [LinearizabilityOperation]) throws -> LinearizabilityReport {
        for operation in history {
            if let response = operation.response, !operation.call.accepts(response) {
                throw Malformed(description: "\(operation.call.text) cannot be answered \(response.text): \(operation)")
            }
            if let responded = operation.responded, responded < operation.invoked {
                throw Malformed(description: "response before invocation: \(operation)")
            }
        }
        let byKey = Dictionary(grouping: history, by: \.key)
        var report = LinearizabilityReport(
            keyCount: byKey.count, operationCount: history.count, failures: [], undecidedKeys: [])
        for key in byKey.keys.sorted() {
            // A read whose answer is unknown tells nothing: leave it out.
            let operations = byKey[key]!.filter { $0.isDetermined || $0.call.writes }
            switch LinearizabilitySearch(operations: operations).run(budget: budget) {
            case .linearizable: break
            case .undecided: report.undecidedKeys.append(key)
            case .notLinearizable(let longest):
                report.failures.append(
                    explain(key: key, operations, longest: longest, total: byKey[key]!.count))
            }
        }
        return report
    }

    /// The failure of `operations` (of `key`, not linearizable) told by its shortest failing prefix of responses,
    /// found by bisection: a prefix of a linearizable history is linearizable, so failing prefixes are the longer
    /// ones. The failure shows the operations as answered in the whole history.
    private func explain(key: String, _ operations: [LinearizabilityOperation], longest: [Int], total: Int)
        -> LinearizabilityFailure
    {
        let responses = operations.filter(\.isDetermined).map { $0.responded! }.sorted()
        var passing = 0  // the empty prefix is linearizable
        var failing = responses.count
        var failed = (members: Array(operations.indices), longest: longest)
        while failing - passing > 1 {
            let middle = (passing + failing) / 2
            let members = Self.prefix(of: operations, until: responses[middle - 1])
            let search = LinearizabilitySearch(operations: members.map(\.operation))
            if case .notLinearizable(let order) = search.run(budget: budget) {
                failing = middle
                failed = (members.map(\.index), order)
            } else {
                passing = middle
            }
        }
        let end = responses[failing - 1]
        let prefix = failed.members.map { operations[$0] }
        let ordered = Set(failed.longest)
        return LinearizabilityFailure(
            key: key,
            culprit: prefix.first { $0.isDetermined && $0.responded == end } ?? prefix[0],
            prefix: prefix,
            longestOrder: failed.longest.map { prefix[$0] },
            unplaced: prefix.indices.filter {
                !ordered.contains($0) && prefix[$0].isDetermined && prefix[$0].responded! <= end
            }.map { prefix[$0] },
            operationCount: total)
    }

    /// The history as it stood at `time`, with each operation's index in `operations`: the operations invoked by
    /// then, those not answered by then unanswered (reads among them dropped, as they tell nothing).
    static func prefix(of operations: [LinearizabilityOperation], until time: UInt64)
        -> [(index: Int, operation: LinearizabilityOperation)]
    {
        operations.enumerated().compactMap { index, operation in
            guard operation.invoked <= time else { return nil }
            if operation.isDetermined && operation.responded! <= time { return (index, operation) }
            guard operation.call.writes else { return nil }
            var pending = operation
            pending.response = nil
            pending.responded = nil
            return (index, pending)
        }
    }
}

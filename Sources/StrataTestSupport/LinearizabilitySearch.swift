/// The search for a linearization of one key's operations: Wing & Gong's, with Lowe's memoization.
///
/// The calls and responses, in time order, form a list. The search walks it from the start: a call it reaches may
/// take effect now if the register allows its answer and the pair (operations taken so far, register state) was not
/// met before — then the call and its response leave the list and the walk restarts; a response it reaches means
/// an operation that must have taken effect by then has not, so the last choice is undone and the walk resumes
/// after it. The memo of pairs already explored is what keeps a few hundred overlapping operations fast: each pair
/// is expanded once. Operations whose effect is unknown (no response, or an error) answer at the end of time and
/// need not be taken at all; the search succeeds once every answered operation is taken. Three reductions keep
/// failing histories (searched to exhaustion) fast too: a read the register allows is taken without a choice, of
/// interchangeable writes of unknown effect only the first is tried, and values no get read are one state.
struct LinearizabilitySearch {
    /// What the search concluded.
    enum Outcome {
        case linearizable
        /// No order exists; `longest` is the longest sequence of operations (indices) the search could order.
        case notLinearizable(longest: [Int])
        /// The budget of steps ran out first.
        case undecided
    }

    /// The operations, all of one key.
    let operations: [LinearizabilityOperation]

    /// The register's state is a value's number (its index in the order of first mention), `absent`, or `unread`
    /// (any value no get read).
    private static let absent = -1
    private static let unread = -2

    private struct Memo: Hashable {
        var taken: [UInt64]
        var state: Int
    }

    /// Searches with at most `budget` steps.
    func run(budget: Int) -> Outcome {
        let count = operations.count
        if count == 0 { return .linearizable }
        // Values no get read are told apart by nothing: they share one number, so that states differing only in
        // which of them the register holds are one state to the memo.
        let read = Set(
            operations.compactMap { operation -> String? in
                guard operation.isDetermined, case .value(let value?)? = operation.response else { return nil }
                return value
            })
        var numbers: [String: Int] = [:]
        func number(_ value: String?) -> Int {
            guard let value else { return Self.absent }
            guard read.contains(value) else { return Self.unread }
            if let known = numbers[value] { return known }
            numbers[value] = numbers.count
            return numbers.count - 1
        }
        // The model's step for each operation, the value numbers resolved once.
        let steps: [(Int) -> Int?] = operations.map { operation in
            let determined = operation.isDetermined
            switch (operation.call, determined ? operation.response : nil) {
            case (.put, .refused?), (.move, .refused?):
                // Refused for what the key holds: it held a value, and still does.
                return { state in state != Self.absent ? state : nil }
            case (.put(let value), _):
                let written = number(value)
                return { _ in written }
            case (.delete, .existed(let existed)?):
                return { state in (state != Self.absent) == existed ? Self.absent : nil }
            case (.delete, _):
                return { _ in Self.absent }
            case (.get, .value(let value)?):
                let read = number(value)
                return { state in state == read ? state : nil }
            case (.move, .ok?):
                return { state in state != Self.absent ? state : nil }
            case (.move, .notFound?):
                return { state in state == Self.absent ? state : nil }
            case (.list, .listed(let listed)?):
                return { state in (state != Self.absent) == listed ? state : nil }
            default:
                // A read whose answer is unknown constrains nothing and changes nothing.
                return { state in state }
            }
        }
        let determined = operations.map(\.isDetermined)
        // What a write whose effect is unknown leaves the register holding. Two such writes that leave the same are
        // interchangeable once both are invoked (both may take effect at any later moment, or never): of those
        // available, only the first in the list is tried, which spares the search every subset of the others.
        let floating: [Int?] = operations.map { operation in
            guard !operation.isDetermined else { return nil }
            switch operation.call {
            case .put(let value): return number(value)
            case .delete: return Self.absent
            case .get, .move, .list: return nil
            }
        }
        // The reads: operations that never change the register whatever its state (a delete that found nothing
        // included). A write that happens to leave the state as it is does not count: elsewhere it would change it.
        let reads = operations.map { operation in
            switch (operation.call, operation.isDetermined ? operation.response : nil) {
            case (.put, .refused?): true
            case (.put, _), (.delete, .existed(true)?), (.delete, nil): false
            default: true
            }
        }

        // The events in time order, calls before responses at equal times (so that touching operations overlap).
        // Node `2 * count` is the list's head; the list is circular.
        var events: [(time: UInt64, isResponse: Bool, operation: Int)] = []
        events.reserveCapacity(2 * count)
        for (index, operation) in operations.enumerated() {
            events.append((operation.invoked, false, index))
            events.append((determined[index] ? operation.responded! : .max, true, index))
        }
        events.sort { ($0.time, $0.isResponse ? 1 : 0, $0.operation) < ($1.time, $1.isResponse ? 1 : 0, $1.operation) }
        let head = 2 * count
        var next = Array(1...head) + [0]
        var previous = [head] + Array(0..<head)
        var responseNode = [Int](repeating: 0, count: count)
        for (node, event) in events.enumerated() where event.isResponse { responseNode[event.operation] = node }

        func unlink(_ node: Int) {
            next[previous[node]] = next[node]
            previous[next[node]] = previous[node]
        }
        func relink(_ node: Int) {
            next[previous[node]] = node
            previous[next[node]] = node
        }

        /// Whether an untaken write of unknown effect, interchangeable with the one at `node`, comes before it.
        func hasTwinBefore(_ node: Int) -> Bool {
            guard let effect = floating[events[node].operation] else { return false }
            var earlier = next[head]
            while earlier != node {
                if !events[earlier].isResponse, floating[events[earlier].operation] == effect { return true }
                earlier = next[earlier]
            }
            return false
        }

        var taken = [UInt64](repeating: 0, count: (count + 63) / 64)
        var memo = Set<Memo>()
        var state = Self.absent
        var stack: [(node: Int, state: Int)] = []
        var longest: [Int] = []
        var remaining = determined.count(where: { $0 })
        var node = next[head]
        // Each state is first searched for a read, which is taken without a choice (see below), and only then for a
        // write.
        var readsPass = true
        var used = 0
        var deadEnd = false
        while remaining > 0 {
            used += 1
            if used > budget { return .undecided }
            if !deadEnd && node != head && !events[node].isResponse {
                let operation = events[node].operation
                if reads[operation] == readsPass, let after = steps[operation](state),
                    !hasTwinBefore(node)
                {
                    taken[operation >> 6] |= 1 << UInt64(operation & 63)
                    if memo.insert(Memo(taken: taken, state: after)).inserted {
                        stack.append((node, state))
                        state = after
                        unlink(node)
                        unlink(responseNode[operation])
                        if determined[operation] { remaining -= 1 }
                        if stack.count > longest.count { longest = stack.map { events[$0.node].operation } }
                        node = next[head]
                        readsPass = true
                        continue
                    }
                    taken[operation >> 6] &= ~(1 << UInt64(operation & 63))
                    // A read whose state was searched before and failed: so has this one (see below).
                    deadEnd = readsPass
                }
                node = next[node]
            } else if readsPass && !deadEnd {
                readsPass = false
                node = next[head]
            } else {
                // An operation that must have taken effect by now has not: undo the last choice, and the one
                // before while the undone one is a read. Taking a read the register allows is never a wrong choice:
                // any order from the state before it can be changed to take it first (it answers the same there, it
                // changes nothing for the operations it overtakes, and every operation that must precede it is taken
                // already, or the walk would have met that operation's response before its call), so when no order
                // follows it, none follows the state it was taken in either.
                deadEnd = false
                readsPass = false
                var last: (node: Int, state: Int)
                repeat {
                    guard let popped = stack.popLast() else { return .notLinearizable(longest: longest) }
                    last = popped
                    let operation = events[last.node].operation
                    taken[operation >> 6] &= ~(1 << UInt64(operation & 63))
                    state = last.state
                    relink(responseNode[operation])
                    relink(last.node)
                    if determined[operation] { remaining += 1 }
                    if !reads[operation] { break }
                } while true
                node = next[last.node]
            }
        }
        return .linearizable
    }
}

import Foundation
import StrataCore

// A total order on property-list values, for what must be written the same way every time (a `Set`'s elements):
// first by case, then by value — numbers numerically, strings and dictionary keys by their UTF-8 bytes (as
// `ExactString` orders them), data and arrays lexicographically, dictionaries by their entries in key order. It
// depends on the values only, never on a hash seed or a description (`data(4 bytes)` is the same text for every
// 4-byte value).
extension PropertyListValue {
    /// Whether this value comes before `other` in the total order above.
    func precedes(_ other: PropertyListValue) -> Bool {
        if caseRank != other.caseRank { return caseRank < other.caseRank }
        switch (self, other) {
        case (.bool(let left), .bool(let right)): return !left && right
        case (.integer(let left), .integer(let right)): return left < right
        case (.real(let left), .real(let right)): return Self.precedes(left, right)
        case (.string(let left), .string(let right)): return ExactString(left) < ExactString(right)
        case (.data(let left), .data(let right)): return left.lexicographicallyPrecedes(right)
        case (.date(let left), .date(let right)):
            return Self.precedes(left.timeIntervalSinceReferenceDate, right.timeIntervalSinceReferenceDate)
        case (.array(let left), .array(let right)):
            return left.lexicographicallyPrecedes(right) { $0.precedes($1) }
        case (.dictionary(let left), .dictionary(let right)):
            let (leftEntries, rightEntries) = (left.sorted { $0.key < $1.key }, right.sorted { $0.key < $1.key })
            return leftEntries.lexicographicallyPrecedes(rightEntries) { lhs, rhs in
                lhs.key != rhs.key ? lhs.key < rhs.key : lhs.value.precedes(rhs.value)
            }
        default: return false
        }
    }

    /// The case's place in the order.
    private var caseRank: Int {
        switch self {
        case .bool: 0
        case .integer: 1
        case .real: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .array: 6
        case .dictionary: 7
        }
    }

    /// IEEE 754's total order (`-0` before `0`, NaNs at the ends), strict.
    private static func precedes(_ left: Double, _ right: Double) -> Bool {
        left.isTotallyOrdered(belowOrEqualTo: right) && !right.isTotallyOrdered(belowOrEqualTo: left)
    }
}

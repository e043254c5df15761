import Foundation
import StrataCore

/// Finds a member name that appears twice in one JSON object, comparing names by their exact bytes (two
/// canonically equivalent spellings are two names).
///
/// Small objects, nearly every record, are checked pair by pair after comparing lengths, with no allocation;
/// large ones (a dictionary of thousands of entries) through a hash set, so the check stays linear.
enum DuplicateMemberNames {
    static let pairwiseLimit = 32

    /// The index of the first name equal to an earlier one, or `nil`.
    /// - Parameters:
    ///   - count: How many names.
    ///   - length: The byte length of name `i`.
    ///   - equal: Whether names `i` and `j` (of equal length) have the same bytes.
    ///   - name: Name `i` itself, for the hash set.
    static func firstRepeat(
        count: Int, length: (Int) -> Int, equal: (Int, Int) -> Bool, name: (Int) -> ExactString
    ) -> Int? {
        if count <= pairwiseLimit {
            for index in 1..<max(1, count) {
                let size = length(index)
                for earlier in 0..<index where length(earlier) == size && equal(earlier, index) { return index }
            }
            return nil
        }
        var seen = Set<ExactString>(minimumCapacity: count)
        for index in 0..<count where !seen.insert(name(index)).inserted { return index }
        return nil
    }

    /// Whether two of `count` byte ranges in `base` (`range(i)`: offset and length) hold the same bytes, checked
    /// pair by pair, lengths first: the check every object of every record encoded or read goes through, with no
    /// closure context or string made (inlined into its caller). Only for `count <= pairwiseLimit`.
    @inline(__always)
    static func hasRepeat(in base: UnsafeRawPointer, count: Int, range: (Int) -> (offset: Int, length: Int)) -> Bool {
        var index = 1
        while index < count {
            let (offset, length) = range(index)
            var earlier = 0
            while earlier < index {
                let other = range(earlier)
                if other.length == length, ByteSpans.equal(base + offset, base + other.offset, count: length) {
                    return true
                }
                earlier += 1
            }
            index += 1
        }
        return false
    }
}

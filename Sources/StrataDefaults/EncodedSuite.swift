import Foundation
import StrataCore

/// A suite's binary file as this process last wrote it, with where each top-level scalar value lies in it: a set
/// that replaces such values by ones of the same encoded size patches these bytes instead of encoding the whole
/// suite again (a durable set rewrites the file on every call, and encoding a suite of a thousand keys was most of
/// a set's work).
///
/// The patched bytes are a valid `bplist00` of the changed suite: every object says its own type and size, and the
/// writer shares none (``BinaryPropertyList/encode(_:)`` does not deduplicate), so one object replaced by another
/// of the same length leaves every offset, every reference and the trailer true.
struct EncodedSuite {
    /// The document.
    private(set) var bytes: Data
    /// The top-level keys, in the order they were written.
    private let keys: [ExactString]
    /// Where the value of each of ``keys`` lies in ``bytes``; empty for an array or a dictionary.
    private let valueRanges: [Range<Int>]
    /// The position of each key in ``keys``, made by the first patch (a suite written whole and never patched does
    /// not pay for it).
    private var positions: [ExactString: Int]?

    init(bytes: Data, keys: [ExactString], valueRanges: [Range<Int>]) {
        self.bytes = bytes
        self.keys = keys
        self.valueRanges = valueRanges
    }

    /// One key's change, with the value it replaces.
    struct Change {
        let key: ExactString
        /// The value the document holds now (`nil`: the key is new).
        let old: PropertyListValue?
        /// The value it gets (`nil`: the key is removed).
        let new: PropertyListValue?
    }

    /// Makes each of `changes` in the bytes, when every one of them replaces a scalar by a scalar of the same encoded
    /// size.
    /// - Returns: Whether it did; when it did not, the document is unchanged (the caller encodes the suite whole).
    mutating func patch(_ changes: [Change]) -> Bool {
        // Whether a patch can be made is told by the values alone, before the positions are looked up (or made).
        var objects: [[UInt8]] = []
        objects.reserveCapacity(changes.count)
        for change in changes {
            guard let old = change.old, let new = change.new,
                let object = BinaryPropertyList.encodedScalar(new),
                let replaced = BinaryPropertyList.encodedScalar(old), object.count == replaced.count
            else { return false }
            objects.append(object)
        }
        if positions == nil {
            var made: [ExactString: Int] = [:]
            made.reserveCapacity(keys.count)
            for (position, key) in keys.enumerated() { made[key] = position }
            positions = made
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(changes.count)
        for (change, object) in zip(changes, objects) {
            // The document holds what the suite held (the caller's rule): the key is there, its object that long.
            guard let position = positions?[change.key], valueRanges[position].count == object.count else {
                return false
            }
            ranges.append(valueRanges[position])
        }
        for (range, object) in zip(ranges, objects) { bytes.replaceSubrange(range, with: object) }
        return true
    }
}

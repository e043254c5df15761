#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string that equals another only when their Unicode scalars are identical.
///
/// Swift's `String` compares by canonical equivalence: `"caf\u{E9}"` (é, NFC) equals `"cafe\u{301}"` (e and a
/// combining acute, NFD), and a `[String: Value]` keeps only one of them. Files written by other tools can hold
/// both spellings as two distinct keys, and Strata's policy for store keys is to keep every key exactly as
/// given, never normalized (see `Documentation/Reliability.md`). Wherever keys are collected (a plist
/// dictionary, a JSON object, a listing), they are held as `ExactString` so two spellings stay two entries.
///
/// Equality, hashing and ordering all use the UTF-8 bytes, so the order is the bytewise order SQLite, `sort`
/// under the C locale and the file system's directory listings agree on.
///
/// ```swift
/// let nfc: ExactString = "caf\u{E9}"
/// let nfd: ExactString = "cafe\u{301}"
/// nfc == nfd                          // false
/// "caf\u{E9}" == "cafe\u{301}"        // true for String
/// ```
public struct ExactString: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The string, with its scalars exactly as given.
    public let string: String

    /// Wraps a string without changing its scalars.
    public init(_ string: String) {
        self.string = string
    }

    /// Wraps a string literal without changing its scalars.
    public init(stringLiteral value: String) {
        self.string = value
    }

    /// The string itself.
    public var description: String { string }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        let left = lhs.string.utf8
        let right = rhs.string.utf8
        guard left.count == right.count else { return false }
        // Native strings are contiguous UTF-8: compare the bytes with memcmp. Bridged ones fall back to a loop.
        let fast = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in
                a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        return (fast ?? nil) ?? left.elementsEqual(right)
    }

    public static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        let utf8 = string.utf8
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        hasher.combine(utf8.count)
    }
}

extension String {
    /// Whether the two strings have exactly the same Unicode scalars (not merely canonically equivalent ones).
    public func isScalarIdentical(to other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}

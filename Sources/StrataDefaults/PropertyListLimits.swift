/// How large a property list the readers accept, measured on the value as it expands in memory.
///
/// A binary plist may refer to one object from many places, so 170 bytes can describe 8¹² leaves; XML can nest
/// elements thousands deep. Both readers count every reference as the size of what it expands to (memoized per
/// object, so the count itself is cheap) and refuse, with a ``PropertyListError``, a document over any limit.
/// A value that was read is therefore never a bomb: every walk over it (encoding, ``PropertyListValue/encodedSizeEstimate``,
/// equality, hashing, description) ends quickly. The readers and writers keep their own stacks; Swift's own
/// equality, hashing and release of a value recurse once a level, which ``supportedMaximumDepth`` bounds.
///
/// ```swift
/// var limits = PropertyListLimits.default
/// limits.maximumExpandedSize = 1 << 20
/// let value = try PropertyListFormat.decode(data, limits: limits)
/// ```
public struct PropertyListLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and dictionaries; above ``supportedMaximumDepth`` it counts as that. The
    /// default is ``defaultMaximumDepth``.
    public var maximumDepth: Int
    /// The largest ``PropertyListValue/encodedSizeEstimate`` of the expanded value, in bytes. The default is
    /// ``defaultMaximumExpandedSize``.
    public var maximumExpandedSize: Int
    /// The most values (containers, keys and scalars, each counted once per place it appears). The default is
    /// ``defaultMaximumNodeCount``.
    public var maximumNodeCount: Int

    /// 256 levels: far deeper than any real preference.
    public static let defaultMaximumDepth = 256
    /// 512 levels: the deepest nesting any reader accepts, whatever ``maximumDepth`` says. Swift compares, hashes
    /// and releases a ``PropertyListValue`` recursively, once a level: 512 levels fit a 512 KiB stack (a secondary
    /// thread's on macOS) in a debug build, 1,024 do not. (The default `description` reflects, about 1.5 KiB a level
    /// there: up to about 300 levels.)
    public static let supportedMaximumDepth = 512
    /// 16 MiB: the largest suite file a ``DefaultsStore`` reads with its default budget.
    public static let defaultMaximumExpandedSize = 16 << 20
    /// 4,194,304 values.
    public static let defaultMaximumNodeCount = 1 << 22

    /// The limits every reader applies unless told otherwise.
    public static let `default` = PropertyListLimits()

    /// These limits with ``maximumDepth`` at most ``supportedMaximumDepth``: what the readers apply.
    var supported: PropertyListLimits {
        var limits = self
        limits.maximumDepth = min(maximumDepth, Self.supportedMaximumDepth)
        return limits
    }

    /// Limits; each default is the matching `default…` constant.
    public init(
        maximumDepth: Int = defaultMaximumDepth, maximumExpandedSize: Int = defaultMaximumExpandedSize,
        maximumNodeCount: Int = defaultMaximumNodeCount
    ) {
        self.maximumDepth = maximumDepth
        self.maximumExpandedSize = maximumExpandedSize
        self.maximumNodeCount = maximumNodeCount
    }
}

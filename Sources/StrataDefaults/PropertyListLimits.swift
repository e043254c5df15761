/// How large a property list the readers accept, measured on the value as it expands in memory.
///
/// A binary plist may refer to one object from many places, so 170 bytes can describe 8¹² leaves; XML can nest
/// elements thousands deep. Both readers count every reference as the size of what it expands to (memoized per
/// object, so the count itself is cheap) and refuse, with a ``PropertyListError``, a document over any limit.
/// A value that was read is therefore never a bomb: every walk over it (encoding, ``PropertyListValue/encodedSizeEstimate``,
/// equality, hashing, description) ends quickly and recurses at most ``maximumDepth`` levels.
///
/// ```swift
/// var limits = PropertyListLimits.default
/// limits.maximumExpandedSize = 1 << 20
/// let value = try PropertyListFormat.decode(data, limits: limits)
/// ```
public struct PropertyListLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and dictionaries. The default is ``defaultMaximumDepth``.
    public var maximumDepth: Int
    /// The largest ``PropertyListValue/encodedSizeEstimate`` of the expanded value, in bytes. The default is
    /// ``defaultMaximumExpandedSize``.
    public var maximumExpandedSize: Int
    /// The most values (containers, keys and scalars, each counted once per place it appears). The default is
    /// ``defaultMaximumNodeCount``.
    public var maximumNodeCount: Int

    /// 256 levels: far deeper than any real preference, shallow enough that every recursive walk fits in the
    /// 512 KiB stack of a secondary thread.
    public static let defaultMaximumDepth = 256
    /// 16 MiB: the largest suite file a ``DefaultsStore`` reads with its default budget.
    public static let defaultMaximumExpandedSize = 16 << 20
    /// 4,194,304 values.
    public static let defaultMaximumNodeCount = 1 << 22

    /// The limits every reader applies unless told otherwise.
    public static let `default` = PropertyListLimits()

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

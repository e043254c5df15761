/// The size limits of the defaults tier, held once and read by both the selector (which sends a preference to
/// files when it is over ``valueLimit``) and the defaults tier (which refuses what is over them), so the two can
/// never disagree.
///
/// ```swift
/// var limits = DefaultsLimits()
/// limits.valueLimit = 16 << 10
/// let selector = StorageSelector(configuration: SelectorConfiguration(defaults: limits))
/// // Storage(root:selector:) gives the same limits to its defaults backend.
/// ```
public struct DefaultsLimits: Sendable, Hashable, Codable {
    /// The largest single value, in bytes: the length of a data or string value, the encoded size less its
    /// 3-byte header for any other value. The key is not counted here (the suite budget counts it). A preference
    /// larger than this goes to files. The default is 64 KiB.
    public var valueLimit: Int
    /// The largest the whole suite may grow, in encoded bytes (keys included). When a preference no longer fits,
    /// `Storage.put` sends it to files by the rule `preference-to-files-suite-full`. The default is 1 MiB, the
    /// decision table's "< 1 MB" for defaults.
    public var suiteBudget: Int

    /// Creates limits with the defaults described on each property.
    public init(valueLimit: Int = 64 << 10, suiteBudget: Int = 1 << 20) {
        self.valueLimit = valueLimit
        self.suiteBudget = suiteBudget
    }
}

/// Limits that protect an import from hostile archives.
public struct ImportLimits: Sendable {
    /// The most all entries may expand to, in bytes. The default is 1 GiB.
    public var maximumTotalSize: Int
    /// The highest expansion ratio an entry (of more than 1 MiB) may have. The default is 200 (a zip bomb is
    /// far above; ordinary text is below 20).
    public var maximumRatio: Int
    /// The most entries an archive may have. The default is 100 000.
    public var maximumEntries: Int

    public init(maximumTotalSize: Int = 1 << 30, maximumRatio: Int = 200, maximumEntries: Int = 100_000) {
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
        self.maximumEntries = maximumEntries
    }
}

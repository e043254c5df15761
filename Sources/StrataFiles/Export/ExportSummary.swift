/// What a zip export wrote, and what it could not.
public struct ExportSummary: Sendable, Hashable {
    /// The entries in the archive.
    public var entries: Int
    /// The archive's size in bytes.
    public var bytes: Int
    /// Keys that were listed but gone when their turn came (another program deleted them meanwhile), sorted: they
    /// are left out of the archive, which is complete and valid without them.
    public var missingKeys: [String]

    public init(entries: Int, bytes: Int, missingKeys: [String] = []) {
        self.entries = entries
        self.bytes = bytes
        self.missingKeys = missingKeys
    }
}

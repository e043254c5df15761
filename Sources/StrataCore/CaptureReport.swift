/// What a capture copied, and what it left out on purpose.
public struct CaptureReport: Sendable, Hashable, Codable {
    /// How many files went to the sink.
    public var fileCount: Int
    /// Their total size in bytes.
    public var byteCount: Int64
    /// What was left out, one entry per key.
    public var omissions: [CaptureOmission]
    /// Files handed to the sink ahead of the capture's instant that a restore must leave out, by path: for each, the
    /// **first** file of the capture with that path. A file copied ahead that changed before the instant is copied
    /// again (a later file of the same path, which a restore keeps); one that left its tier (deleted, or moved to
    /// another tier) has no later copy.
    public var withdrawnPaths: [String]
    /// Keys the store's catalog named at the capture's instant whose tier did not hold them (something outside
    /// Strata removed them): left out of the capture's catalog, so that its restore holds every other key.
    public var missingKeys: [String]

    /// Creates a report.
    public init(
        fileCount: Int = 0, byteCount: Int64 = 0, omissions: [CaptureOmission] = [], withdrawnPaths: [String] = [],
        missingKeys: [String] = []
    ) {
        self.fileCount = fileCount
        self.byteCount = byteCount
        self.omissions = omissions
        self.withdrawnPaths = withdrawnPaths
        self.missingKeys = missingKeys
    }

    /// Counts one file handed to the sink.
    public mutating func count(_ file: CapturedFile) {
        fileCount += 1
        byteCount += file.size
    }

    /// Adds what another capture (another tier's) copied and left out.
    public mutating func merge(_ other: CaptureReport) {
        fileCount += other.fileCount
        byteCount += other.byteCount
        omissions += other.omissions
        withdrawnPaths += other.withdrawnPaths
        missingKeys += other.missingKeys
    }
}

/// What a restore wrote and checked.
public struct RestoreReport: Sendable, Hashable {
    /// The files written.
    public var fileCount: Int
    /// The catalogued keys read back (each one, before the store was moved into place).
    public var verifiedKeys: Int
    /// The catalogued keys whose tier stayed locked (no key provider was given for the secrets tier), checked for
    /// presence only.
    public var uncheckedKeys: [String]
    /// What the capture had left out on purpose (a `...ThisDeviceOnly` secret), as it reported it.
    public var omissions: [CaptureOmission]
    /// Keys the snapshot's catalog named whose value it does not hold (removed from their tier before the backup,
    /// by something outside Strata): left out of the restored store, which holds every other key.
    public var missingKeys: [String]

    /// Creates a report.
    public init(
        fileCount: Int = 0, verifiedKeys: Int = 0, uncheckedKeys: [String] = [], omissions: [CaptureOmission] = [],
        missingKeys: [String] = []
    ) {
        self.missingKeys = missingKeys
        self.fileCount = fileCount
        self.verifiedKeys = verifiedKeys
        self.uncheckedKeys = uncheckedKeys
        self.omissions = omissions
    }
}

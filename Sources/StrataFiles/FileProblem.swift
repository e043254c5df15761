/// A file whose content no longer matches what was recorded when it was written.
public struct FileProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The CRC-32 of the content differs from the recorded one: the bytes changed behind the store's back.
        case checksumMismatch = "checksum-mismatch"
        /// The size differs from the recorded one.
        case sizeMismatch = "size-mismatch"
        /// Nothing was recorded (written by another program, a file system without extended attributes, or — on
        /// S3 — a writer killed between completing a multipart upload and recording its checksum).
        case unrecorded
    }

    public var key: String
    public var kind: Kind
    public var detail: String

    /// Creates a problem report, for an engine implementing ``FileEngine/verify(prefix:)``.
    public init(key: String, kind: Kind, detail: String) {
        self.key = key
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(key): \(kind.rawValue) (\(detail))" }
}

/// One file of a store, as a backup captures it and a restore writes it back.
///
/// A tier's capture describes each file it hands to a ``CaptureSink`` with one of these; the repository keeps the
/// description beside the content, and a restore gives it back through a ``CaptureSource``.
public struct CapturedFile: Sendable, Hashable {
    /// The path relative to the store's root, with `/` between components (`records/records.sqlite`).
    public var path: String
    /// The tier the file belongs to; `nil` for the store's own files (configuration, catalog).
    public var tier: Tier?
    /// The permission bits (`0o600`).
    public var mode: UInt32
    /// The content's length in bytes.
    public var size: Int64
    /// The last modification time, in whole seconds since 1970 and nanoseconds.
    public var modificationTime: Timespec
    /// Extended attributes the tier keeps on the file (content type, checksum), by name. Empty for most files.
    public var extendedAttributes: [String: [UInt8]]

    /// A point in time with nanosecond precision, as `stat(2)` reports it.
    public struct Timespec: Sendable, Hashable, Codable {
        /// Whole seconds since 1970-01-01 00:00 UTC.
        public var seconds: Int64
        /// Nanoseconds past ``seconds``.
        public var nanoseconds: Int32

        /// Creates a time.
        public init(seconds: Int64, nanoseconds: Int32) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }
    }

    /// Creates a description.
    public init(
        path: String, tier: Tier?, mode: UInt32, size: Int64, modificationTime: Timespec,
        extendedAttributes: [String: [UInt8]] = [:]
    ) {
        self.path = path
        self.tier = tier
        self.mode = mode
        self.size = size
        self.modificationTime = modificationTime
        self.extendedAttributes = extendedAttributes
    }
}

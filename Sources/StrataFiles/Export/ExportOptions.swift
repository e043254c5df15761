public import Foundation
import StrataCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Options of an export.
public struct ExportOptions: Sendable {
    /// The deflate level, 0–9. The default is 6, as `gzip` and `zip` use; each level compresses about as well as
    /// zlib's (at 6, libdeflate's level 7 takes a quarter of the input: see `LevelBlend`).
    public var level: Int32
    /// Threads compressing at once. The default is every core.
    public var threads: Int
    /// Called as the export goes (from the exporting thread).
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Polled between blocks; return `true` to stop (the export then throws `.cancelled`, leaving no output).
    public var isCancelled: (@Sendable () -> Bool)?
    /// Entries at least this large, or starting this far in, get ZIP64 fields (lowered by tests).
    var zip64Threshold = 0xFFFF_0000
    /// The input each gzip member holds (lowered by tests).
    var gzipMemberSize = 1 << 20

    public init(
        level: Int32 = 6, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) {
        self.level = level
        self.threads = threads
        self.progress = progress
        self.isCancelled = isCancelled
    }
}

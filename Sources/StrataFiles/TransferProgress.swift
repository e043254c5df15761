import StrataCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How far an export or import has come.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes of input processed so far.
    public var bytesDone: Int
    /// Bytes of input in all.
    public var bytesTotal: Int
    /// The entry being processed, for archives.
    public var currentKey: String?
}

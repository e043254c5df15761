public import StrataCore

/// How a ``FileStore`` writes and waits. A `Sendable` struct of `var`s.
public struct FilesConfiguration: Sendable {
    /// Whether writes are forced to disk before they return. The default is ``/StrataCore/Durability/durable``
    /// (``/StrataCore/Durability/coalesced(_:)`` is taken as durable: files are written at once).
    public var durability: Durability
    /// How long to wait for another reader or writer of the same file. The default is 30 seconds.
    public var lockTimeout: FileLock.Timeout
    /// The size of the chunks streamed reads hand out. The default is 1 MiB.
    public var chunkSize: Int
    /// The catalog the store reports its changes to when `Storage` opens it (see ``/StrataCore/PlacementLedger``);
    /// `nil` for a store opened on its own, which finds the catalog of its root itself.
    package var placement: (any PlacementLedger)?

    /// Creates a configuration with the defaults described on each property.
    public init(
        durability: Durability = .durable, lockTimeout: FileLock.Timeout = .seconds(30),
        chunkSize: Int = 1 << 20
    ) {
        self.durability = durability
        self.lockTimeout = lockTimeout
        self.chunkSize = chunkSize
    }
}

/// How a ``RecordStore`` opens its database. A `Sendable` struct of `var`s.
public struct RecordsConfiguration: Sendable {
    /// SQLite's `synchronous` setting in WAL mode.
    public enum Synchronous: String, Sendable, Hashable {
        /// Commits are durable once `write` returns: a power loss keeps them. Slower (a sync per commit).
        case full = "FULL"
        /// Commits survive a crash of the process; a power loss may roll back the last ones, never corrupting
        /// the database. SQLite's recommended setting for WAL.
        case normal = "NORMAL"
    }

    /// Durability of commits. The default is ``Synchronous/full``: a commit that returned survives power loss.
    public var synchronous: Synchronous
    /// How long a connection waits for another process's lock before failing with `.lockTimeout`.
    /// The default is 10 000 ms.
    public var busyTimeoutMilliseconds: Int
    /// How many read-only connections serve concurrent reads. The default is 4.
    public var readerCount: Int
    /// How often observers check for commits made by other processes, in milliseconds. The default is 100.
    public var observationIntervalMilliseconds: Int
    /// Whether the store is opened only to read it (as `strata verify` and `strata inspect` do): a missing file
    /// is `.notFound` instead of being created, an empty database gets no tables, the journal mode is left as
    /// it is, and every write fails with `.permissionDenied`. The default is `false`.
    public var isReadOnly = false

    /// Creates a configuration with the defaults described on each property.
    public init(
        synchronous: Synchronous = .full, busyTimeoutMilliseconds: Int = 10_000, readerCount: Int = 4,
        observationIntervalMilliseconds: Int = 100
    ) {
        self.synchronous = synchronous
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.readerCount = readerCount
        self.observationIntervalMilliseconds = observationIntervalMilliseconds
    }
}

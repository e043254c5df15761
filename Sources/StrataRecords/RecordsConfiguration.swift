public import StrataCore

/// How a ``RecordStore`` opens its database. A `Sendable` struct of `var`s.
public struct RecordsConfiguration: Sendable {
    /// Durability of commits, Strata's one ``/StrataCore/Durability``, as SQLite's `synchronous` setting in WAL mode:
    /// ``/StrataCore/Durability/durable`` is `FULL` (a commit that returned survives a power loss, a sync per commit);
    /// ``/StrataCore/Durability/atomicOnly`` is `NORMAL` (commits survive a crash of the process; a power loss may roll
    /// back the last ones, never corrupting the database). SQLite does not coalesce commits:
    /// ``/StrataCore/Durability/coalesced(_:)`` is taken as `NORMAL`. The default is
    /// ``/StrataCore/Durability/durable``.
    public var durability: Durability
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
    /// How much of the database file each connection reads through a memory map instead of `read` calls, in
    /// bytes (SQLite's `mmap_size`, capped by SQLite at 2 GiB); 0 reads everything with `read` calls into each
    /// connection's page cache (``pageCacheKibibytes``). A mapped file that another process truncates, or a disk
    /// error on a mapped page, stops the process with `SIGBUS` instead of returning an error, so a map is for a
    /// store no other program can write and on a disk that does not fail. The default is 0: no map, and every
    /// such fault is a thrown `StorageError`.
    public var memoryMapBytes = 0
    /// The page cache of each connection, in KiB (SQLite's `cache_size`): the pages a connection keeps after
    /// reading them (with no memory map, every page a read needs comes from here or from a `read` call), and
    /// what a write transaction keeps of the pages it changes before spilling them. It fills only as pages are
    /// read: a connection never holds more than the file. The default is 262,144 (256 MiB), enough for the pages
    /// of a million records of ~130 bytes, so that a point get in such a store costs about what it costs in a
    /// small one once its pages have been read.
    public var pageCacheKibibytes = 262_144
    /// The catalog the store reports the changes of its key-value values to when `Storage` opens it (see
    /// ``/StrataCore/PlacementLedger``); `nil` for a store opened on its own, which finds the catalog of its root
    /// itself.
    package var placement: (any PlacementLedger)?
    /// The permission bits (0...0o777) of a database file the store creates; SQLite gives its `-wal` and `-shm`
    /// files the same. `nil` (the default) gives 0600 — SQLite's own, 0644 less the umask, would let every user read
    /// the records — or, for a store opened on a root shared with its group, 0660: SQLite writes these files in
    /// place, so the group needs to write them too.
    public var filePermissions: Int?

    /// Creates a configuration with the defaults described on each property.
    public init(
        durability: Durability = .durable, busyTimeoutMilliseconds: Int = 10_000, readerCount: Int = 4,
        observationIntervalMilliseconds: Int = 100
    ) {
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.readerCount = readerCount
        self.observationIntervalMilliseconds = observationIntervalMilliseconds
    }
}

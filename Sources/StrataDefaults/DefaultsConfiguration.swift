public import StrataCore

/// How a ``DefaultsStore`` persists and what it accepts. A `Sendable` struct of `var`s; change what you need.
public struct DefaultsConfiguration: Sendable {
    /// When a set reaches the disk: Strata's one ``/StrataCore/Durability``.
    ///
    /// - ``/StrataCore/Durability/coalesced(_:)``: sets apply in memory at once and are written together after the
    ///   delay (a burst makes one write). ``DefaultsStore/flush()`` forces the write, and pending sets are written at
    ///   normal process exit.
    /// - ``/StrataCore/Durability/durable``: every set is written durably (fsync) before it returns.
    /// - ``/StrataCore/Durability/atomicOnly``: every set is written before it returns, without fsync.
    public typealias Durability = StrataCore.Durability

    /// When sets reach the disk. The default is ``/StrataCore/Durability/coalesced(_:)`` with 50 ms.
    public var durability: Durability
    /// The format of the suite file. The default is ``PropertyListFormat/binary``; both formats are always read.
    public var format: PropertyListFormat
    /// The value limit and suite budget, shared with the selector when `Storage` opens the suite. The default is
    /// ``/StrataCore/DefaultsLimits/init(valueLimit:suiteBudget:)``: 64 KiB a value, 1 MiB a suite.
    public var limits: DefaultsLimits
    /// Key names allowed even though they look like credentials, matched by their exact Unicode scalars. The
    /// default is none.
    public var allowedSensitiveKeys: Set<String>
    /// How long a write waits for another process holding the suite's lock. The default is 10 seconds.
    public var lockTimeout: FileLock.Timeout
    /// Whether to watch the file for other processes' changes (inotify, with a periodic check as a fallback).
    /// The default is `true`.
    public var watchesExternalChanges: Bool
    /// The catalog the suite reports its changes to when `Storage` opens it (see
    /// ``/StrataCore/PlacementLedger``); `nil` for a store opened on its own, which finds the catalog of its root
    /// itself.
    package var placement: (any PlacementLedger)?

    /// Creates a configuration with the defaults described on each property.
    public init(
        durability: Durability = .coalesced(.milliseconds(50)),
        format: PropertyListFormat = .binary,
        valueLimit: Int = 64 << 10,
        suiteBudget: Int = 1 << 20,
        allowedSensitiveKeys: Set<String> = [],
        lockTimeout: FileLock.Timeout = .seconds(10),
        watchesExternalChanges: Bool = true
    ) {
        self.durability = durability
        self.format = format
        self.limits = DefaultsLimits(valueLimit: valueLimit, suiteBudget: suiteBudget)
        self.allowedSensitiveKeys = allowedSensitiveKeys
        self.lockTimeout = lockTimeout
        self.watchesExternalChanges = watchesExternalChanges
    }

    /// The largest single value (``/StrataCore/DefaultsLimits/valueLimit``): the length of a data or string value, the
    /// encoded size less its header for others; the key is not counted. The default is 64 KiB.
    public var valueLimit: Int {
        get { limits.valueLimit }
        set { limits.valueLimit = newValue }
    }

    /// The largest the whole suite may grow, in encoded bytes (``/StrataCore/DefaultsLimits/suiteBudget``). The default
    /// is 1 MiB, the decision table's "< 1 MB" for defaults.
    public var suiteBudget: Int {
        get { limits.suiteBudget }
        set { limits.suiteBudget = newValue }
    }
}

public import StrataCore

/// How a ``DefaultsStore`` persists and what it accepts. A `Sendable` struct of `var`s; change what you need.
public struct DefaultsConfiguration: Sendable {
    /// When a set reaches the disk.
    public enum Durability: Sendable, Hashable {
        /// Sets apply in memory at once and are written together after this delay (a burst makes one write).
        /// ``DefaultsStore/flush()`` forces the write, and pending sets are written at normal process exit.
        case coalesced(Duration)
        /// Every set is written durably (fsync) before it returns.
        case immediate
    }

    /// When sets reach the disk. The default is ``Durability/coalesced(_:)`` with 50 ms.
    public var durability: Durability
    /// The format of the suite file. The default is ``PropertyListFormat/binary``; both formats are always read.
    public var format: PropertyListFormat
    /// The largest single value (key included), in encoded bytes. The default is 64 KiB.
    public var valueLimit: Int
    /// The largest the whole suite may grow, in encoded bytes. The default is 1 MiB, the design note's budget.
    public var suiteBudget: Int
    /// Key names allowed even though they look like credentials. The default is none.
    public var allowedSensitiveKeys: Set<String>
    /// How long a write waits for another process holding the suite's lock. The default is 10 seconds.
    public var lockTimeout: FileLock.Timeout
    /// Whether to watch the file for other processes' changes (inotify, with a periodic check as a fallback).
    /// The default is `true`.
    public var watchesExternalChanges: Bool

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
        self.valueLimit = valueLimit
        self.suiteBudget = suiteBudget
        self.allowedSensitiveKeys = allowedSensitiveKeys
        self.lockTimeout = lockTimeout
        self.watchesExternalChanges = watchesExternalChanges
    }
}

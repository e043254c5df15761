/// How far a write goes before the call that made it returns: what survives a crash of the process, and what
/// survives a power loss. Every tier's configuration and every backend's report use this one type.
///
/// ```swift
/// let files = FilesConfiguration(durability: .atomicOnly)                  // scratch exports
/// let prefs = DefaultsConfiguration(durability: .coalesced(.milliseconds(50)))
/// print(try storage.backend(for: .records).durability)                     // durable
/// ```
public enum Durability: Sendable, Hashable, CustomStringConvertible {
    /// On disk before the call returns (`fsync` of the data and of its folder, or a server's flushed commit):
    /// the write survives a crash of the process and a power loss.
    case durable
    /// Atomic but not forced to disk: a crash of the process keeps the write, a power loss may roll back the
    /// latest writes (to an earlier, whole state, never a torn one). SQLite's `synchronous=NORMAL`.
    case atomicOnly
    /// Applied in memory at once and written together after this delay (a burst makes one write, which is then
    /// durable): a crash of the process within the delay loses the writes not yet written. `flush()` writes
    /// them at once. A backend that cannot coalesce treats this as ``durable``.
    case coalesced(Duration)

    /// Whether a write that reaches the disk is forced there (`fsync`): `false` only for ``atomicOnly``.
    public var syncsToDisk: Bool {
        if case .atomicOnly = self { return false }
        return true
    }

    /// One sentence: what survives what.
    public var description: String {
        switch self {
        case .durable:
            return "durable: on disk before the call returns, survives a crash and a power loss"
        case .atomicOnly:
            return "atomic only: survives a crash of the process; a power loss may roll back the latest writes"
        case .coalesced(let delay):
            return "coalesced: written together within \(Self.text(delay)) (then durable); a crash within that "
                + "window loses the writes not yet written, flush() writes them at once"
        }
    }

    static func text(_ delay: Duration) -> String {
        let (seconds, attoseconds) = delay.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds < 1000 || milliseconds % 1000 != 0 ? "\(milliseconds) ms" : "\(milliseconds / 1000) s"
    }
}

import StrataCore
import StrataRecords

extension RecordsConfiguration {
    /// SQLite's `PRAGMA synchronous` value for ``durability``.
    var sqliteSynchronous: String { durability == .durable ? "FULL" : "NORMAL" }
}

import Foundation
package import StrataCore

/// An index on a field: an expression index over the JSON, optionally unique.
public struct Index: Sendable, Hashable {
    /// The field indexed.
    public var field: Field
    /// Whether two records may not hold the same value.
    public var isUnique: Bool

    /// A plain index.
    public static func field(_ field: Field) -> Index { Index(field: field, isUnique: false) }
    /// A uniqueness constraint (and index): two records may not hold the same value.
    public static func unique(_ field: Field) -> Index { Index(field: field, isUnique: true) }

    /// The index's name in the database: `i_<collection>_<field>[_u]`, with dots as `__`. Names longer than
    /// 63 bytes (PostgreSQL's limit) end in a hash of the whole name instead, so two never collide.
    public func name(in collection: String) -> String {
        let full = "i_\(collection)_\(field.path.replacingOccurrences(of: ".", with: "__"))\(isUnique ? "_u" : "")"
        guard full.utf8.count > 63 else { return full }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, stable across runs and platforms
        for byte in full.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(decoding: full.utf8.prefix(46), as: UTF8.self) + "_" + String(hash, radix: 16)
    }

    /// The error for an index whose ``name(in:)`` another index already holds, which `CREATE INDEX IF NOT EXISTS`
    /// would skip without a word, leaving the field unindexed and a unique field unchecked. Names meet when
    /// underscores line up (`f_u` and the unique `f` of one collection; the field `c` of `a_b` and `b_c` of `a`; `a.b`
    /// and `a__b`) or differ only in case. `holder` is the other index's definition, as the database gives it.
    package func nameTaken(in collection: String, holder: String) -> StorageError {
        StorageError(
            .invalidArgument,
            "the \(isUnique ? "unique " : "")index on '\(field.path)' cannot be created: its name "
                + "\(name(in: collection)) is already another index's (\(holder))",
            tier: .records, collection: collection, operation: "create index",
            recovery: "An index's name joins the collection and the field with '_' (a dot as '__', '_u' ending a "
                + "unique one), without regard to case; rename the field or the collection so that the names differ")
    }
}

import Foundation

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
}

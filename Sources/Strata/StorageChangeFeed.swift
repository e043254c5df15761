import StrataCatalog

/// What one observation of a store (``Storage/observe(_:interval:)``, ``Storage/changes(prefix:interval:)``) has
/// reported: where each key it watches lived then. Each time the catalog moves, the catalog's entries are compared
/// with it, and every difference is one change.
struct StorageChangeFeed: Sendable {
    /// The keys an observation watches.
    enum Scope: Sendable {
        /// One key.
        case key(String)
        /// Every key that starts with the string.
        case prefix(String)
    }

    let scope: Scope
    /// Where each watched key lived when its last change was reported (or when the observation began).
    private var reported: [String: StorageLocation]
    /// Whether a change was put off because its key's lock was held: the next look is taken even if the catalog
    /// has not moved.
    private(set) var hasPutOff = false

    /// A feed that reports the changes from what `catalog` records now.
    init(_ scope: Scope, catalog: any CatalogEngine) throws {
        self.scope = scope
        reported = try Self.entries(of: scope, in: catalog)
    }

    /// Where `catalog` places the keys of `scope` now.
    static func entries(of scope: Scope, in catalog: any CatalogEngine) throws -> [String: StorageLocation] {
        switch scope {
        case .key(let key):
            return try catalog.location(of: key).map { [key: $0] } ?? [:]
        case .prefix(let prefix):
            return try Dictionary(catalog.locations(prefix: prefix).map { ($0.key, $0) }) { _, last in last }
        }
    }

    /// The changes since the last call (or since the feed was made), sorted by key, each key's changes coalesced
    /// into one: what the catalog records now against what was reported.
    ///
    /// A key whose entry is gone is looked up again under its lock, since a `Storage` operation removes an entry
    /// before it records where else it found the key (a repair), and the key is reported removed only when it is
    /// still gone then; while its lock is held by someone, the change is put off (``hasPutOff``).
    mutating func changes(in catalog: any CatalogEngine) throws -> [StorageChange] {
        let now = try Self.entries(of: scope, in: catalog)
        hasPutOff = false
        var keys = Set(now.keys.map { ExactString($0) })
        keys.formUnion(reported.keys.map { ExactString($0) })
        var changes: [StorageChange] = []
        // What is reported now is noted once every key was looked at: a lookup that throws halfway leaves the feed
        // as it was, so the next call reports the keys before it again.
        var reporting: [(key: String, location: StorageLocation?)] = []
        for exact in keys.sorted() {
            let key = exact.string
            let old = reported[key]
            var new = now[key]
            if old == new { continue }
            if new == nil {
                guard let confirmed = try catalog.withKeyLockIfFree(key, { try catalog.location(of: key) }) else {
                    hasPutOff = true
                    continue
                }
                new = confirmed
                if old == new { continue }
            }
            let event: StorageChange.Event
            switch (old, new) {
            case (nil, _): event = .set
            case (let old?, nil): event = .removed(from: old.tier)
            case (let old?, let new?) where old.tier != new.tier: event = .moved(from: old.tier)
            default: event = .updated
            }
            reporting.append((key, new))
            changes.append(StorageChange(key: key, event: event, location: new))
        }
        for (key, location) in reporting { reported[key] = location }
        return changes
    }
}

package import StrataCore

// The file catalog as the engine `Storage` speaks to: changes in locations become log records, their strings
// interned in the table.
extension StorageCatalog: CatalogEngine {
    /// Interns the location's strings (a string over 254 bytes is cut at a scalar boundary, as the log keeps it),
    /// refusing a location past the table's 65,534 distinct strings, and compares the two entries' interned ids.
    package func recordedPlacement(comparedWith location: StorageLocation) throws -> RecordedPlacement? {
        let entry = try entry(for: location)
        return try current { state in
            state.entries[location.key].map {
                RecordedPlacement(tier: $0.tier, kind: $0.kind, isUnchanged: $0.hasPlacement(of: entry))
            }
        }
    }

    package func record(_ changes: [CatalogChange], durable: Bool) throws {
        var records: [CatalogRecord] = []
        records.reserveCapacity(changes.count)
        for change in changes {
            switch change {
            case .set(let location): records.append(.set(key: location.key, entry: try entry(for: location)))
            case .remove(let key): records.append(.remove(key: key))
            case .intent(let key, let from, let to): records.append(.intent(key: key, from: from, to: to))
            case .settle(let key): records.append(.settle(key: key))
            }
        }
        try append(records, durable: durable)
    }
}

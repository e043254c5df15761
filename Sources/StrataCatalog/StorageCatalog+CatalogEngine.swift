package import StrataCore
import Synchronization

// The file catalog as the engine `Storage` speaks to: changes in locations become log records, their strings
// interned in the table.
extension StorageCatalog: CatalogEngine {
    /// Interns the location's strings (a string over 254 bytes is cut at a scalar boundary), refusing a location past
    /// the table's 65,534 distinct strings.
    package func admit(_ location: StorageLocation) throws -> StorageLocation {
        try state.withLock { state in
            state.location(key: location.key, entry: try entry(for: location, in: &state))
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

package import Foundation
package import StrataCatalog
package import StrataCore
import StrataPostgres
import StrataPostgresClient
import StrataRecords

// Reads that find a key's placement and its value in one statement, when the records tier keeps its values in the
// catalog's schema (a shared store's records on the catalog's server): one round trip where a read through the
// catalog otherwise makes three (the placement, the value, and the counter that shows nothing moved in between).
extension PostgresCatalog {
    package func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    {
        guard readsRecordValues(of: tiers, key: key) else {
            let (tier, changeCount) = try placement(of: key)
            return (tier, changeCount, nil)
        }
        return try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(
                    PostgresCatalogSQL.tierCountAndRecordValue, [.text(key)], operation: "find")
                let tier = result.isNull(0, 0) ? nil : try Self.tier(result.text(0, 0), at: location)
                let changeCount = UInt64(result.text(0, 1)) ?? failedCount()
                guard !result.isNull(0, 2) else { return (tier, changeCount, nil) }
                return (tier, changeCount, Data(try PostgresKeyValueTable.value(result.text(0, 2), key: key)))
            }
        }
    }

    /// Whether the active records backend of `tiers` keeps its values in `strata_kv` of this catalog's schema on the
    /// same server (the same connection string): then its values are read in the catalog's own statements.
    func readsRecordValues(of tiers: any CatalogTiers, key: String) -> Bool {
        guard let opened = try? tiers.opened(.records, key: key), let store = opened.backend as? RecordStore,
            let engine = store.engine as? PostgresRecordEngine
        else { return false }
        return engine.configuration.connectionString == configuration.connectionString
            && engine.configuration.schema == configuration.schema
    }
}

package import Foundation
package import StrataCatalog
package import StrataCore
import StrataDefaultsPostgres
import StrataPostgres
import StrataPostgresClient
import StrataRecords

// Reads that find a key's placement and its value in one statement, when the tier keeps its values in the catalog's
// schema (a shared store's records and defaults on the catalog's server): one round trip where a read through the
// catalog otherwise makes three (the placement, the value, and the counter that shows nothing moved in between).
extension PostgresCatalog {
    package func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    {
        let records = readsRecordValues(of: tiers, key: key)
        let defaults = sharedDefaults(of: tiers, key: key)
        let statement: String
        switch (records, defaults) {
        case (false, nil):
            let (tier, changeCount) = try placement(of: key)
            return (tier, changeCount, nil)
        case (true, nil): statement = PostgresCatalogSQL.tierCountAndRecordValue
        case (false, _?): statement = PostgresCatalogSQL.tierCountAndDefaultsValue
        case (true, _?): statement = PostgresCatalogSQL.tierCountAndRecordOrDefaultsValue
        }
        return try keyed(key) {
            try withConnection { connection in
                let result = try connection.query(
                    statement, [.text(key)] + (defaults.map { [.text($0.suite)] } ?? []), operation: "find")
                let tier = result.isNull(0, 0) ? nil : try Self.tier(result.text(0, 0), at: location)
                let changeCount = UInt64(result.text(0, 1)) ?? failedCount()
                guard !result.isNull(0, 2) else { return (tier, changeCount, nil) }
                if tier == .defaults, let defaults {
                    return (tier, changeCount, try defaults.byteForm(ofServerValue: result.text(0, 2), key: key))
                }
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
        return sharesSchema(engine.configuration)
    }

    /// The active defaults backend of `tiers` when it keeps its suite in this catalog's schema on the same server.
    func sharedDefaults(of tiers: any CatalogTiers, key: String) -> PostgresDefaults? {
        guard let opened = try? tiers.opened(.defaults, key: key), let defaults = opened.backend as? PostgresDefaults,
            sharesSchema(defaults.configuration)
        else { return nil }
        return defaults
    }

    /// Whether `other` names this catalog's server (the same connection string) and schema.
    func sharesSchema(_ other: PostgresConfiguration) -> Bool {
        other.connectionString == configuration.connectionString && other.schema == configuration.schema
    }
}

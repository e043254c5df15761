package import Foundation
package import StrataCatalog
package import StrataCore
import StrataDefaultsPostgres
import StrataPostgres
import StrataPostgresClient
import StrataRecords
import StrataSecretsPostgres

// Reads that find a key's placement and its value in one statement, when the tier keeps its values in the catalog's
// schema (a shared store's records, defaults and secrets on the catalog's server): one round trip where a read
// through the catalog otherwise makes three (the placement, the value, and the counter that shows nothing moved in
// between).
extension PostgresCatalog {
    package func placementAndValue(of key: String, in tiers: any CatalogTiers) throws
        -> (tier: Tier?, changeCount: UInt64, value: Data?)
    {
        let records = readsRecordValues(of: tiers, key: key)
        let defaults = sharedDefaults(of: tiers, key: key)
        if let secrets = sharedSecrets(of: tiers) {
            let statement = PostgresCatalogSQL.tierCountAndValue(
                records: records, defaults: defaults != nil, secrets: true)
            var placed: (tier: Tier?, changeCount: UInt64, value: Data?)?
            var asked = false
            do {
                let value = try secrets.data(for: key) { parameters in
                    asked = true
                    let (result, found) = try read(statement, key, defaults: defaults, more: parameters)
                    placed = found
                    return found.tier == .secrets ? (result, 3) : nil
                }
                if let placed, placed.tier == .secrets { return (placed.tier, placed.changeCount, value) }
                if let placed { return placed }
            } catch  where !asked {
                // Refused before the statement ran (a key no item of the keyring could have: too long for an
                // account, say): the key is read without the keyring, as when it is locked.
            }
        }
        guard records || defaults != nil else {
            let (tier, changeCount) = try placement(of: key)
            return (tier, changeCount, nil)
        }
        let statement = PostgresCatalogSQL.tierCountAndValue(
            records: records, defaults: defaults != nil, secrets: false)
        return try read(statement, key, defaults: defaults, more: []).placed
    }

    /// Runs a statement of ``PostgresCatalogSQL/tierCountAndValue(records:defaults:secrets:)`` for `key` (with the
    /// suite of `defaults`, and `more` parameters after it) and reads its first three columns: the key's tier, the
    /// change counter, and the value of a records or defaults key.
    private func read(
        _ statement: String, _ key: String, defaults: PostgresDefaults?, more: [PostgresParameter]
    ) throws -> (result: PostgresResult, placed: (tier: Tier?, changeCount: UInt64, value: Data?)) {
        try keyed(key) {
            try withConnection { connection in
                let parameters = [.text(key)] + (defaults.map { [.text($0.suite)] } ?? []) + more
                let result = try connection.query(statement, parameters, operation: "find")
                let tier = result.isNull(0, 0) ? nil : try Self.tier(result.text(0, 0), at: location)
                let changeCount = UInt64(result.text(0, 1)) ?? failedCount()
                guard !result.isNull(0, 2) else { return (result, (tier, changeCount, nil)) }
                if tier == .defaults, let defaults {
                    return (
                        result, (tier, changeCount, try defaults.byteForm(ofServerValue: result.text(0, 2), key: key))
                    )
                }
                return (result, (tier, changeCount, Data(try PostgresKeyValueTable.value(result.text(0, 2), key: key))))
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

    /// The active secrets backend of `tiers` when it keeps its keyring in this catalog's schema on the same server
    /// and can read now: open (a read never opens it: without a key, opening fails every time) and unlocked.
    func sharedSecrets(of tiers: any CatalogTiers) -> PostgresSecrets? {
        guard let opened = tiers.openedIfOpen(.secrets), let secrets = opened.backend as? PostgresSecrets,
            !secrets.isLocked, sharesSchema(secrets.configuration)
        else { return nil }
        return secrets
    }
}

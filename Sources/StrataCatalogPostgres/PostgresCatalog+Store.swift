package import StrataCore
import StrataPostgresClient

// What ties a catalog on PostgreSQL to one store: the settings every machine must give alike (``SharedSetting``: the
// files location its keys' files are at, the suite and keyring its preferences and credentials are in), written by
// the first machine that opens the store and checked by every other, so that a root whose configuration names
// another (a typo on one machine) cannot drop the catalog's entries for values it does not find, nor read a key
// from another suite or keyring.
extension PostgresCatalog {
    /// Records `value` as the store's `setting` when none is recorded, else checks that it is the one.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` (with the setting's tier and attribute) naming both
    ///   values when they differ.
    package func bind(_ setting: SharedSetting, to value: String) throws {
        let recorded = try pool.with { connection in
            try connection.query(
                PostgresCatalogSQL.bindSetting, [.text(setting.metaKey), .text(value)], operation: "open"
            ).text(0, 0)
        }
        guard recorded == value else {
            var error = StorageError(
                .invalidArgument,
                "the shared catalog in \(location) belongs to a store \(setting.noun) \(recorded); this root names "
                    + value, tier: setting.tier,
                recovery:
                    "Make the root's [\(setting.tier.rawValue)] \(setting.attribute) the store's (every machine's "
                    + "strata.conf names the same), or give this store a schema of its own (strata_schema=)")
            error.attribute = setting.attribute
            throw error
        }
    }
}

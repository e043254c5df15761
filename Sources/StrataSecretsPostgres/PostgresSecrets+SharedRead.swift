package import Foundation
package import StrataCore
package import StrataPostgresClient
import StrataSecrets

// A read of one of `Storage`'s items in a statement another engine on the same server and schema sends: a shared
// store's catalog reads a key's placement, and when the key is placed in the secrets tier the keyring's row and the
// item with it, in one snapshot and one round trip (the item then needs no check that the key did not move between
// two statements). The item is opened and checked against the manifest exactly as a read of its own checks it.
extension PostgresSecrets {
    /// The expressions of a read in another engine's statement (see ``data(for:through:)``): the keyring's sequence
    /// number, its keyring file and manifest when they changed since the ones held, and the item, each `NULL` when
    /// the keyring does not exist. `keyring`, `held` and `name` are that statement's parameters (such as `$3`) that
    /// ``data(for:through:)`` fills, in that order.
    package static func readExpressions(keyring: String, held: String, name: String) -> [String] {
        PostgresSecretsSQL.readExpressions(keyring: keyring, held: held, name: name)
    }

    /// The value of `Storage`'s item under `key` (as ``data(for:)`` reads it), read by another engine's statement:
    /// `fetch` runs that statement with `parameters` (the keyring, the sequence number held and the item's row name,
    /// for the placeholders given to ``readExpressions(keyring:held:name:)``) and returns its row and the column
    /// where the read's expressions begin, or `nil` when it found the key placed in another tier. `fetch` runs once
    /// more when the keyring it saw is older than one this instance has seen (another thread moved on meanwhile).
    /// - Returns: The value; `nil` when `fetch` returned `nil` or the keyring holds no such item.
    /// - Throws: ``/StrataCore/StorageError`` as ``data(for:)``: before `fetch` runs, when `key` is no account an
    ///   item could have or the keyring was never unlocked; after, `.notFound` when the keyring is gone,
    ///   `.rolledBack`, `.corrupt`, `.locked` for an item whose class key is wiped, or what `fetch` throws.
    package func data(
        for key: String,
        through fetch: (_ parameters: [PostgresParameter]) throws -> (row: PostgresResult, column: Int)?
    ) throws -> Data? {
        let identity = try ItemIdentity.checked(service: SecretStore.storageBackendService, account: key)
        let name = try fileName(identity)
        let found = try consistent { held in
            try fetch([.text(keyring), .text(String(held)), .text(name)])
        }
        guard let (row, column, keyring) = found else { return nil }
        let item = row.isNull(0, column + 3) ? nil : row.text(0, column + 3)
        return try open(name, hex: item, in: keyring, identity: identity, value: true)?.secret?.data
    }
}

import StrataCore
import StrataSecrets
import Synchronization

extension PostgresSecrets {
    /// The bytes of a value the server sent as hex.
    func hex(_ text: String, what: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(text) else {
            throw StorageError(
                .corrupt, "the server sent a \(what) that is not hex", tier: .secrets, path: location)
        }
        return bytes
    }

    /// The refusal of an operation that needs the keyring's key while this instance has none.
    func notUnlocked(_ needing: String? = nil) -> StorageError {
        StorageError(
            .locked, (needing ?? "this") + " needs the keyring unlocked", tier: .secrets, path: location,
            recovery: "Call unlock(with:) first, with the key every machine of the store uses")
    }

    /// A rollback detected: an older state of the keyring's rows put back on the server.
    func rolledBack(_ why: String, key: String?) -> StorageError {
        StorageError(
            .rolledBack, why, tier: .secrets, key: key, path: location,
            recovery: "Someone with access to the database put back older rows; its values may be revoked ones. "
                + "Store the affected items again (a set replaces the row), or restore the keyring from a backup you "
                + "trust")
    }

    /// The error for an item the manifest holds whose row is missing.
    func missingRow(_ name: String, key: String?) -> StorageError {
        StorageError(
            .corrupt,
            "the manifest holds the item \(name), and its row is missing: it was deleted on the server "
                + "behind the store's back", tier: .secrets, key: key, path: location + "/" + name,
            recovery: "Store the item again, or restore the keyring's rows from a backup")
    }

    /// Throws ``missingRow(_:key:)`` for an item the manifest holds that is not among the rows `listed`.
    func checkNoRowMissing(in keyring: CurrentKeyring, listed: Set<String>) throws {
        if let missing = keyring.manifest.entries.first(where: { !$0.value.deleted && !listed.contains($0.key) }) {
            throw missingRow(missing.key, key: nil)
        }
    }

    /// The error for a keyring row that is gone after this instance unlocked it.
    func keyringGone() -> StorageError {
        var error = StorageError(
            .notFound, "the keyring '\(keyring)' is not on the server", tier: .secrets, path: location,
            recovery: "It was removed on the server behind the store's back: restore its rows from a backup")
        error.collection = keyring
        return error
    }
}

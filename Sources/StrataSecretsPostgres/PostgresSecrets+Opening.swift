import Foundation
import StrataCore
import StrataSecrets
import Synchronization

extension PostgresSecrets {
    /// Opens the item row `name` (its bytes as hex, `nil` when there is none) against the keyring's manifest.
    ///
    /// The manifest decides: an item it holds must have a row whose generation is the entry's; an item it does not
    /// hold (or holds as deleted) must have none. A row older than its entry, or one the manifest does not hold, was
    /// put back (`rolled-back`); a row missing, edited, or moved from another item or keyring is `corrupt`.
    /// - Parameter identity: The item asked for, which the row must hold; `nil` in a listing.
    /// - Returns: `nil` when there is no such item.
    func open(_ name: String, hex text: String?, in keyring: CurrentKeyring, identity: ItemIdentity?, value: Bool)
        throws -> OpenedSecret?
    {
        let entry = keyring.manifest.entries[name].flatMap { $0.deleted ? nil : $0 }
        guard let text else {
            if entry != nil { throw missingRow(name, key: identity?.displayKey) }
            return nil
        }
        guard let entry else {
            throw rolledBack(
                "the row \(name) holds an item the manifest does not (a deleted item put back, or a row added on the "
                    + "server)", key: identity?.displayKey)
        }
        let file = Data(try hex(text, what: "item \(name)"))
        let path = location + "/" + name
        let (accessibility, version) = try ItemEnvelope.header(of: file, path: path)
        let key = keyring.keys.classKey(accessibility)
        guard !key.isWiped else { throw notUnlocked("reading a \(accessibility.rawValue) item") }
        let (record, secret) = try ItemEnvelope.open(
            file, accessibility: accessibility, version: version, keyringID: keyring.id, fileName: name, key: key,
            path: path, value: value)
        if let identity, ItemIdentity(record) != identity {
            throw StorageError(
                .corrupt, "the row holds another service or account than its name", tier: .secrets,
                key: identity.displayKey, path: path, recovery: "Delete the item and store it again")
        }
        let generation = record.modified.timeIntervalSince1970
        guard generation == entry.modified else {
            if generation < entry.modified {
                throw rolledBack(
                    "the row is an older version of the item than the manifest records: it was put back",
                    key: ItemIdentity(record).displayKey)
            }
            throw StorageError(
                .corrupt, "the row is newer than the manifest records: the manifest or the row was edited",
                tier: .secrets, key: ItemIdentity(record).displayKey, path: path,
                recovery: "Restore the keyring's rows from a backup")
        }
        return OpenedSecret(record: record, accessibility: accessibility, secret: secret)
    }
}

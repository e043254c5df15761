import Foundation
package import StrataCore
import StrataPostgresClient
import StrataSecrets

// A keyring folder loaded into the server as it is (what a restore of a capture into a new shared store does): the
// inverse of the capture, byte for byte — the keyring file, the manifest and every item (a file, or an entry of the
// manifest) become the rows a writer would have made, so nothing is decrypted or re-sealed and no key is needed.
// Item envelopes are bound to the keyring's name and their row name, both kept.
extension PostgresSecrets {
    /// Loads the keyring folder `folder` (its `keyring.json`, `items.manifest` and item files) as this instance's
    /// keyring, in one transaction.
    /// - Throws: ``/StrataCore/StorageError``: `.conflict` when the keyring (or item rows of its name) is on the
    ///   server already, `.corrupt` naming the file for a folder without a readable keyring file or manifest, with
    ///   a keyring file of another keyring's name, or with an item file whose name no writer makes; an I/O error, or
    ///   the server's.
    package func load(keyringFolder folder: String) throws {
        let manager = FileManager.default
        func read(_ name: String) throws -> [UInt8] {
            guard let data = manager.contents(atPath: folder + "/" + name) else {
                throw StorageError(
                    .corrupt, "the keyring folder has no readable \(name)", tier: .secrets, path: folder + "/" + name,
                    recovery: "Restore another snapshot")
            }
            return [UInt8](data)
        }
        let keyringFile = try read("keyring.json")
        // The items are sealed to the keyring's name: a folder loads under the name its keyring file gives.
        _ = try KeyringFile.parse(Data(keyringFile), expectedName: keyring, path: folder + "/keyring.json")
        let manifest = try read("items.manifest")
        guard let header = ItemManifest.unauthenticatedHeader(Data(manifest)),
            header.sequence <= UInt64(Int64.max)
        else {
            throw StorageError(
                .corrupt, "the keyring's manifest has no header a writer makes", tier: .secrets,
                path: folder + "/items.manifest", recovery: "Restore another snapshot")
        }
        // A keyring folder keeps small items in its manifest (an inline entry: the same sealed bytes an item file
        // holds, and the file of that name, if any, a leftover): each becomes a row as a file does. A row holds every
        // item here; the manifest is loaded as it is, its inline copies unread by the server's keyring.
        guard let entries = ItemManifest.unauthenticatedEntries(Data(manifest)) else {
            throw StorageError(
                .corrupt, "the keyring's manifest is not one this program reads", tier: .secrets,
                path: folder + "/items.manifest", recovery: "Restore another snapshot")
        }
        let inline = entries.compactMapValues(\.inline)
        let names = try manager.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(SecretStore.itemSuffix) }
        var items: [String: [UInt8]] = [:]
        for name in names where inline[name] == nil {
            guard Self.isItemName(name) else {
                throw StorageError(
                    .corrupt, "the keyring folder holds an item file named '\(name)', which no writer makes",
                    tier: .secrets, path: folder + "/" + name, recovery: "Remove the file, or restore another snapshot")
            }
            items[name] = try read(name)
        }
        // A folder reads states the server's keyring refuses: an entry whose item is not there (an item a capture
        // left out, a delete cut short before its tombstone), an item the manifest does not hold (a write cut short),
        // a rotation cut short. Only the folder's own keyring, with its key, can say what they hold.
        let held = Set(entries.filter { !$0.value.deleted }.keys)
        let present = Set(names).union(inline.keys)
        if held != present || manager.fileExists(atPath: folder + "/rotation.key") {
            var error = StorageError(
                .locked,
                "the keyring folder is in a state only its own keyring reads (items left out or writes cut short): "
                    + "loading it onto the server needs its key", tier: .secrets, path: folder,
                recovery: "Give the key every machine of the store uses (secretsKey:, or STRATA_SECRETS_KEY)")
            error.remedy = .giveSecretsKey
            throw error
        }
        for (name, sealed) in inline {
            guard Self.isItemName(name) else {
                throw StorageError(
                    .corrupt, "the keyring's manifest holds an item named '\(name)', which no writer makes",
                    tier: .secrets, path: folder + "/items.manifest", recovery: "Restore another snapshot")
            }
            items[name] = [UInt8](sealed)
        }
        try pool.with { connection in
            try connection.transaction(operation: "load") {
                let created = try connection.query(
                    PostgresSecretsSQL.load,
                    [.text(keyring), .binary(keyringFile), .binary(manifest), .text(String(header.sequence))],
                    operation: "load")
                guard created.changedRows == 1 else {
                    throw StorageError(
                        .conflict, "the keyring '\(keyring)' is on the server already: a load writes only a new one",
                        tier: .secrets, path: location,
                        recovery: "Load into a new schema, or remove the keyring's rows first")
                }
                for (name, item) in items.sorted(by: { $0.key < $1.key }) {
                    _ = try connection.query(
                        PostgresSecretsSQL.insertItem, [.text(keyring), .text(name), .binary(item)],
                        operation: "load")
                }
            }
        }
    }
}

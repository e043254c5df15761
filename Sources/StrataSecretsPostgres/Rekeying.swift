import StrataSecrets

/// What a change of a keyring's keys writes in one transaction: the new keyring file, the keys the manifest is
/// tagged under, the manifest's entries, and the items re-sealed (none for a change of key).
struct Rekeying {
    var file: KeyringFile
    var keys: DataKeys
    var manifest: ItemManifest
    var items: [(name: String, item: [UInt8])] = []
}

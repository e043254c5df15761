import StrataSecrets

/// A keyring as one statement found it on the server: its id, its keys, and its manifest, authenticated and no older
/// than any this machine has seen.
struct CurrentKeyring: Sendable {
    var id: [UInt8]
    var keys: DataKeys
    var names: GuardedKey
    var manifest: ItemManifest
}

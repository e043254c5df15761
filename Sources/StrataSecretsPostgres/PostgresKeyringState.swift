import Foundation
import StrataSecrets

/// What a ``PostgresSecrets`` holds of its keyring once unlocked: the key it was unlocked with (a rotation or a
/// change of key made on another machine is followed by unwrapping the new keyring file with it), the keys, and the
/// newest manifest it has authenticated.
struct PostgresKeyringState: Sendable {
    /// The key the keyring was unlocked with.
    var provider: KeyProvider?
    /// The keyring file's bytes as the server held them when this instance last unwrapped them, and what they hold.
    var keyringBytes: [UInt8]?
    var keyringFile: KeyringFile?
    /// The keyring file ``provider`` last unwrapped (or wrote): when the server's differs by a change of key made
    /// elsewhere, the provider is not the keyring's key any more, and a rotation must be given the new one.
    var unwrappedKeyringBytes: [UInt8]?
    /// The data key and the keys derived from it, and the name key.
    var keys: DataKeys?
    var names: GuardedKey?
    /// The newest manifest authenticated, and the clear sequence number of the row it came from (the reader sends
    /// it, and the server sends the manifest again only when the row's differs).
    var manifest: ItemManifest?
    var rowSequence: Int64 = -1
    /// The highest manifest sequence number this machine has seen for the keyring (kept across restarts in the
    /// anchor file): a manifest older than it is a rollback.
    var highestSequence: UInt64 = 0
    /// Item names already computed, so warm reads skip the keyed hash.
    var fileNames: [ItemIdentity: String] = [:]
}

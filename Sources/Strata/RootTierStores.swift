import Synchronization

/// The preference suite and the keyring of a store root, opened with its ``Storage``: what ``Storage/defaults`` and
/// ``Storage/secrets`` return without throwing, and what the built-in backends of those two tiers serve, so the
/// typed API and the facade share one instance each.
///
/// Opening them is cheap and touches only the root (a plist read, a folder check); unlocking the keyring, which
/// may derive a key from a passphrase, waits for the keyring's first use.
final class RootTierStores: Sendable {
    /// The tiers whose stores these are: in a shared store, this machine's own, outside the store.
    static let tiers: Set<Tier> = [.defaults, .secrets]

    /// The suite named by the configuration (`standard` by default).
    let defaults: DefaultsStore
    /// The keyring named by the configuration (`default` by default), locked until ``unlockedSecrets()``.
    private let secrets: SecretStore
    /// What unlocks the keyring: the key given to `Storage`, else the environment's.
    private let secretsKey: KeyProvider?
    /// Whether the keyring was unlocked with ``secretsKey`` (or by the app) once; a `lock()` after that is the app's
    /// and is left alone.
    private let unlocked = Mutex<Bool>(false)

    /// Opens the suite and the keyring of `paths`, as the configuration names them.
    /// - Throws: ``/StrataCore/StorageError`` when the suite cannot be read (a bad suite name, a plist format newer
    ///   than `bplist00`, an I/O error) or the keyring's folder cannot be (a link, an I/O error).
    init(
        paths: StoragePaths, configuration: StoreConfiguration, secretsKey: KeyProvider?,
        placement: any PlacementLedger
    ) throws {
        var defaults = Storage.defaultsConfiguration(configuration)
        defaults.placement = placement
        var secrets = SecretsConfiguration()
        secrets.placement = placement
        self.defaults = try DefaultsStore(suite: configuration.defaults.suite, paths: paths, configuration: defaults)
        self.secrets = try SecretStore(keyring: configuration.secrets.keyring, paths: paths, configuration: secrets)
        self.secretsKey = secretsKey
    }

    /// The keyring, unlocked the first time it is asked for (creating it if it does not exist).
    /// - Throws: ``/StrataCore/StorageError`` `.locked` when there is no key for it, or what unlocking throws (a
    ///   wrong key or passphrase, a damaged keyring file); asking again tries again.
    func unlockedSecrets() throws -> SecretStore {
        try unlocked.withLock { done in
            if !done {
                if secrets.isLocked {
                    try secrets.unlock(with: try secretsKey ?? Storage.environmentSecretsKey(for: secrets))
                }
                done = true
            }
            return secrets
        }
    }

    /// The keyring for its typed API, never throwing: unlocked as ``unlockedSecrets()`` does, or, when that fails,
    /// locked and remembering why, so that its first use that needs the key throws that very error.
    func secretsForTypedUse() -> SecretStore {
        do {
            return try unlockedSecrets()
        } catch {
            secrets.rememberWhyLocked(
                error as? StorageError
                    ?? StorageError(.backendUnavailable, "the keyring failed to open: \(error)", tier: .secrets))
            return secrets
        }
    }
}

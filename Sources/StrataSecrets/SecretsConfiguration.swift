public import StrataCore

/// How a ``SecretStore`` derives keys and what it accepts. A `Sendable` struct of `var`s.
public struct SecretsConfiguration: Sendable {
    /// Argon2id cost for passphrase keyrings.
    public struct PasswordHashCost: Sendable, Hashable {
        /// Passes over memory.
        public var operations: UInt64
        /// Memory in bytes.
        public var memory: Int

        public init(operations: UInt64, memory: Int) {
            self.operations = operations
            self.memory = memory
        }

        /// libsodium's interactive level: 2 passes, 64 MiB.
        public static let interactive = PasswordHashCost(operations: 2, memory: 64 << 20)
        /// libsodium's moderate level: 3 passes, 256 MiB.
        public static let moderate = PasswordHashCost(operations: 3, memory: 256 << 20)
        /// The minimum libsodium allows (1 pass, 8 KiB): for tests only, never for real passphrases.
        public static let minimumForTests = PasswordHashCost(operations: 1, memory: 8 << 10)
    }

    /// The Argon2id cost of new keyrings and passphrase changes. The default is ``PasswordHashCost/interactive``.
    public var passwordHashCost: PasswordHashCost
    /// The highest Argon2id cost this store agrees to pay to open a keyring file or an imported archive: both
    /// carry their own parameters, and an archive's are chosen by whoever made it, before anything is
    /// authenticated. Parameters over the limit (in passes or in memory) are refused with `limit-exceeded` before
    /// any derivation. The limit never falls below ``passwordHashCost``. The default is 4 passes and 256 MiB
    /// (libsodium's moderate level with one pass to spare: about a second of one core).
    public var passwordHashLimit: PasswordHashCost
    /// The largest value accepted, in bytes. The default is 16 MiB.
    public var valueLimit: Int
    /// How long writers wait for another process holding the keyring's lock. The default is 10 seconds.
    public var lockTimeout: FileLock.Timeout
    /// The largest sealed item (value, attributes and about 100 bytes of envelope) kept inside the keyring's
    /// manifest instead of in a file of its own: such an item is stored with one file replacement (the manifest's)
    /// instead of two, and a batch of them with one. `...ThisDeviceOnly` items always get a file (a backup copies
    /// the manifest whole, and those items never leave the machine). 0 keeps every item in a file. The default is
    /// 1 KiB (a 64-byte token seals to about 250 bytes).
    public var inlineItemLimit: Int
    /// The most bytes of inline items one manifest holds; past it, further items get files. Every write rewrites
    /// and tags the whole manifest, so this bounds what a write of any item costs on top of its own. The default
    /// is 256 KiB (about a thousand tokens).
    public var inlineTotalLimit: Int
    /// The catalog the keyring reports changes of `Storage`'s items to when `Storage` opens it (see
    /// ``/StrataCore/PlacementLedger``); `nil` for a keyring opened on its own, which finds the catalog of its root
    /// itself.
    package var placement: (any PlacementLedger)?

    /// Creates a configuration with the defaults described on each property.
    public init(
        passwordHashCost: PasswordHashCost = .interactive, valueLimit: Int = 16 << 20,
        lockTimeout: FileLock.Timeout = .seconds(10),
        passwordHashLimit: PasswordHashCost = PasswordHashCost(operations: 4, memory: 256 << 20),
        inlineItemLimit: Int = 1 << 10, inlineTotalLimit: Int = 256 << 10
    ) {
        self.inlineItemLimit = inlineItemLimit
        self.inlineTotalLimit = inlineTotalLimit
        self.passwordHashCost = passwordHashCost
        self.passwordHashLimit = passwordHashLimit
        self.valueLimit = valueLimit
        self.lockTimeout = lockTimeout
    }
}

extension SecretsConfiguration {
    /// New Argon2id parameters for a passphrase: a random salt, and ``passwordHashCost``.
    package func newKDFParameters() -> KDFParameters {
        KDFParameters(
            salt: Sodium.random(Sodium.saltBytes), operations: passwordHashCost.operations,
            memory: passwordHashCost.memory)
    }

    /// Refuses a value over ``valueLimit`` with `too-large` naming the item.
    package func checkValueSize(_ size: Int, of identity: ItemIdentity) throws {
        guard size <= valueLimit else {
            var error = StorageError(
                .tooLarge, "a secret of \(size) bytes is over the limit of \(valueLimit)", tier: .secrets,
                key: identity.displayKey,
                recovery: "Encrypt large data in the files tier and keep only its key here", suggestedTier: .files)
            error.attribute = "value"
            throw error
        }
    }

    /// Refuses Argon2id parameters over ``passwordHashLimit`` (or over ``passwordHashCost``, whichever is higher)
    /// before anything is derived.
    func checkPasswordHashCost(_ kdf: KDFParameters, path: String?) throws {
        let operations = max(passwordHashLimit.operations, passwordHashCost.operations)
        let memory = max(passwordHashLimit.memory, passwordHashCost.memory)
        guard kdf.operations <= operations, kdf.memory <= memory else {
            throw StorageError(
                .limitExceeded,
                "the password hash asks for \(kdf.operations) passes over \(kdf.memory >> 10) KiB; this store pays at most \(operations) passes over \(memory >> 10) KiB",
                tier: .secrets, path: path,
                recovery:
                    "Nothing was derived. If you trust the file, raise SecretsConfiguration.passwordHashLimit to open it"
            )
        }
    }
}

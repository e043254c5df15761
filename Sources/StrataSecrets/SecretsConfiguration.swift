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
    /// The largest value accepted, in bytes. The default is 16 MiB.
    public var valueLimit: Int
    /// How long writers wait for another process holding the keyring's lock. The default is 10 seconds.
    public var lockTimeout: FileLock.Timeout

    /// Creates a configuration with the defaults described on each property.
    public init(
        passwordHashCost: PasswordHashCost = .interactive, valueLimit: Int = 16 << 20,
        lockTimeout: FileLock.Timeout = .seconds(10)
    ) {
        self.passwordHashCost = passwordHashCost
        self.valueLimit = valueLimit
        self.lockTimeout = lockTimeout
    }
}

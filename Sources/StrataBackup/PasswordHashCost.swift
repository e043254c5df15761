public import StrataSecrets

/// The Argon2id cost of a passphrase slot: the secrets tier's (passes over memory, and memory in bytes).
///
/// A repository stores the cost in each passphrase slot, and refuses slots that ask for more than
/// `PasswordHashCost.moderate` (3 passes over 256 MiB), so a damaged or hostile slot cannot make an open allocate
/// gigabytes.
public typealias PasswordHashCost = SecretsConfiguration.PasswordHashCost

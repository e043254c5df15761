/// What the caller can do about an error, as an action: the Swift API and the `strata` tool word the same action
/// their own way (``StorageError/recovery`` holds the API's words; the tool prints its own for the action, naming
/// its options and variables rather than the API's arguments).
public enum Remedy: Sendable, Hashable {
    /// Give the secrets tier its key (or passphrase).
    case giveSecretsKey
    /// Say that a credential may go to a tier that stores plaintext.
    case allowPlaintext(Tier)
    /// Change the key through the store (which moves it when it belongs elsewhere), move it to `tier` first, or
    /// delete it and write it again.
    case changeThroughStore(Tier)
    /// Allow the credential-looking key name in defaults (it is not a credential), or store it in secrets.
    case allowSensitiveName
    /// Create the backup repository first (nothing is at the path given).
    case createRepository
}

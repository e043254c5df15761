/// How a shell completes the value of an option or a positional argument.
enum CompletionKind: Sendable, Equatable {
    /// What a store holds that a key argument names, listed by `strata __complete-keys` from the store the command
    /// line names (``KeyCompletion``).
    enum Keys: Sendable {
        /// Every tier's keys, as `Storage.keys(prefix:)` lists them (`strata get KEY`).
        case storage
        /// The keys of the defaults suite (`--suite`, else the configuration's).
        case defaults
        /// The services of the keyring's items; listed only when the keyring opens without asking (a key file or
        /// passphrase file on the line, or the environment).
        case secretService
        /// The accounts of the service given before it, on the same terms.
        case secretAccount
        /// The file store's keys.
        case files
        /// The record store's collections.
        case collection
        /// The keys of the record store's key-value table (``RecordsKeysCommand``).
        case recordKeys
    }

    /// Nothing is offered (a name, a number, free text).
    case none
    /// Paths: a file, a folder, an archive, a store root.
    case path
    /// Keys the store holds.
    case key(Keys)
}

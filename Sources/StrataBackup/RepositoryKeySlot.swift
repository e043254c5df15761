public import Foundation
public import StrataCore

/// One key slot of a backup repository, as ``BackupRepository/keySlots()`` lists it: the kind of key that opens
/// it and its Argon2id cost, never the key.
public struct RepositoryKeySlot: Sendable {
    /// What opens a slot.
    public enum Kind: String, Sendable {
        /// A passphrase, stretched with Argon2id.
        case passphrase
        /// A key file of 32 random bytes.
        case keyFile = "key-file"
    }

    /// The slot's id: its file name in `keys/` (64 hex digits; a unique prefix names it too).
    public let id: String
    /// What opens it; `nil` when the slot is damaged (see ``damage``).
    public let kind: Kind?
    /// The Argon2id cost of a passphrase slot; `nil` for a key file or a damaged slot.
    public let cost: PasswordHashCost?
    /// When the slot was written.
    public let created: Date?
    /// Whether this is the slot the repository was opened (or made) with.
    public let isCurrent: Bool
    /// Why the slot cannot be read (`.corrupt`, `.unsupportedVersion`), when it cannot.
    public let damage: StorageError?
}

public import StrataCore

/// What a listing of a keyring found: the items it could read, and the items it left out because they are bound
/// to another machine.
public struct SecretListing: Sendable, Hashable {
    /// An item file left out of a listing or an export.
    public struct Skipped: Sendable, Hashable, CustomStringConvertible {
        /// The item file.
        public var path: String
        /// The item file's name in the keyring folder.
        public var fileName: String
        /// The item's attributes (never its value), or `nil` for an item sealed by an earlier version, which bound
        /// the machine into its attributes too.
        public var item: SecretItem?
        /// Why it was left out: `device-mismatch` — the item was sealed on another machine (or edited; the two
        /// cannot be told apart without that machine's identity).
        public var error: StorageError

        public var description: String { "\(path)\(item.map { " (\($0))" } ?? ""): \(error)" }
    }

    /// The readable items, sorted by service and account.
    public var items: [SecretItem]
    /// The `...ThisDeviceOnly` items sealed on another machine (a keyring folder copied here): they can never be
    /// read on this machine, so listings and exports leave them out and say so, and
    /// ``SecretStore/deleteAll(service:)`` removes those of its service.
    public var otherDeviceItems: [Skipped]
}

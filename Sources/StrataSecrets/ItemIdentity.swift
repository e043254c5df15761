package import StrataCore

/// What names an item: its service and account, compared by their exact Unicode scalars (an NFC and an NFD
/// spelling are two items), and the bytes its file name is a keyed hash of.
package struct ItemIdentity: Hashable, Sendable {
    package let service: ExactString
    package let account: ExactString

    package init(service: String, account: String) {
        self.service = ExactString(service)
        self.account = ExactString(account)
    }

    /// The identity an opened item holds.
    package init(_ record: ItemEnvelope.Record) { self.init(service: record.service, account: record.account) }

    /// The bytes hashed into the file name: service, `0x00`, account, where a NUL inside either is written
    /// `0x00 0xFF`.
    ///
    /// The encoding is injective: `0xFF` never occurs in UTF-8, so a `0x00` followed by `0xFF` is a NUL inside a
    /// field and the first `0x00` followed by anything else (the account's first byte, or `0x00` when the
    /// account starts with a NUL) is the separator. No two identities share the bytes, so no two share a file.
    /// For an identity without NUL the bytes are exactly those of the first format (`service ‖ 0x00 ‖ account`),
    /// so every such item keeps its file name and no keyring needs rewriting.
    var nameMessage: [UInt8] {
        var message = Self.escaped(service.string)
        message.append(0)
        message += Self.escaped(account.string)
        return message
    }

    /// The bytes the first format hashed, when they differ from ``nameMessage`` (only when service or account
    /// holds a NUL): that format named `("bank", "alice\0token")` and `("bank\0alice", "token")` alike.
    var legacyNameMessage: [UInt8]? {
        guard service.string.utf8.contains(0) || account.string.utf8.contains(0) else { return nil }
        return Array(service.string.utf8) + [0] + Array(account.string.utf8)
    }

    private static func escaped(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        return bytes
    }

    /// The identity of a service and account given on the way in: both non-empty, each within
    /// ``SecretItem/attributeLimit``.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` for an empty one, `.tooLarge` naming the attribute.
    package static func checked(service: String, account: String) throws -> ItemIdentity {
        guard !service.isEmpty, !account.isEmpty else {
            throw StorageError(.invalidArgument, "an item needs a non-empty service and account", tier: .secrets)
        }
        let identity = ItemIdentity(service: service, account: account)
        try identity.checkAttribute("service", service)
        try identity.checkAttribute("account", account)
        return identity
    }

    /// Refuses an attribute of this item over ``SecretItem/attributeLimit`` with `too-large` naming it.
    package func checkAttribute(_ attribute: String, _ text: String) throws {
        guard text.utf8.count <= SecretItem.attributeLimit else {
            var error = StorageError(
                .tooLarge,
                "the \(attribute) is \(text.utf8.count) bytes, over the limit of \(SecretItem.attributeLimit)",
                tier: .secrets, key: displayKey,
                recovery: "Keep the \(attribute) short; store long data as the value, or in the files tier")
            error.attribute = attribute
            throw error
        }
    }

    /// How errors name the item: `service/account`, cut short when either is long.
    package var displayKey: String {
        func short(_ text: String) -> String { text.utf8.count <= 200 ? text : String(text.prefix(100)) + "…" }
        return short(service.string) + "/" + short(account.string)
    }

    /// The item's name in its keyring (a file name, or a row's): a keyed hash of ``nameMessage`` under the
    /// keyring's name key, which reveals neither service nor account.
    package func fileName(key: GuardedKey) throws -> String {
        try Self.fileName(hashing: nameMessage, key: key)
    }

    /// The name of the item whose name message is `message`: 16 bytes of keyed BLAKE2b, in hex, and `.item`.
    static func fileName(hashing message: [UInt8], key: GuardedKey) throws -> String {
        hex(try key.withBytes { Sodium.keyedHash(message, key: $0, length: 16) }) + SecretStore.itemSuffix
    }
}

import StrataCore

/// What names an item: its service and account, compared by their exact Unicode scalars (an NFC and an NFD
/// spelling are two items), and the bytes its file name is a keyed hash of.
struct ItemIdentity: Hashable, Sendable {
    let service: ExactString
    let account: ExactString

    init(service: String, account: String) {
        self.service = ExactString(service)
        self.account = ExactString(account)
    }

    /// The identity an opened item holds.
    init(_ record: ItemEnvelope.Record) { self.init(service: record.service, account: record.account) }

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
}

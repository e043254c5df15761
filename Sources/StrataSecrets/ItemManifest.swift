import Foundation
import StrataCore

/// `items.manifest`: the keyring's authenticated record of every item file's generation, so an older copy of an
/// item put back over the current one (a rollback) is refused instead of returning a revoked value.
///
/// An item's generation is its authenticated modification time: every write of an item makes it strictly later
/// than the one the manifest holds for that file, and advances the manifest after the item file is durable. A
/// reader reads the manifest first, then the item: an item older than its entry is a rollback. A deleted item
/// keeps a tombstone, so a deleted file put back is refused too.
///
/// The file is `STRATASM`, a version byte, the keyring's id, the check value of the data key it is tagged under
/// (the keyring's current key: writers seal items under that key), the entries sorted by file name (the name's
/// 16 bytes, the generation's bit pattern, a deleted flag), and a keyed BLAKE2b tag over all of it under a key
/// derived from that data key: editing, truncating or moving it between keyrings is refused.
struct ItemManifest: Sendable, Equatable {
    static let fileName = "items.manifest"
    static let magic = Array("STRATASM".utf8)
    static let version: UInt8 = 1
    static let tagBytes = 32

    /// The newest generation written for one item file.
    struct Entry: Sendable, Equatable {
        /// The item's modification time (its generation).
        var modified: Double
        /// Whether the item was deleted at `modified`.
        var deleted: Bool
    }

    /// The check value of the data key the manifest is tagged under (``GuardedKey/check()``).
    var keyCheck: [UInt8]
    /// Entries by item file name.
    var entries: [String: Entry] = [:]

    /// Whether an item file holding `modified` is older than this manifest allows.
    func isRolledBack(_ fileName: String, modified: Date) -> Bool {
        guard let entry = entries[fileName] else { return false }
        let generation = modified.timeIntervalSince1970
        return entry.deleted ? generation <= entry.modified : generation < entry.modified
    }

    /// The modification time for a new write of `fileName` at `now`: strictly after its entry, even when the
    /// clock went back.
    func nextGeneration(_ fileName: String, now: Date) -> Date {
        guard let entry = entries[fileName], entry.modified >= now.timeIntervalSince1970 else { return now }
        return Date(timeIntervalSince1970: entry.modified.nextUp)
    }

    /// The file's bytes, tagged under `key`.
    func serialized(keyringID: [UInt8], key: GuardedKey) throws -> Data {
        var body = Self.magic + [Self.version] + keyringID + keyCheck
        ItemEnvelope.appendUInt64(UInt64(entries.count), to: &body, width: 4)
        // Sorted by the names' 16 bytes, read as two big-endian integers: the order of the lowercase hex names,
        // without comparing strings (a set serializes the whole manifest, so this runs per entry per write).
        var rows: [(order: (UInt64, UInt64), raw: [UInt8], entry: Entry)] = []
        rows.reserveCapacity(entries.count)
        for (name, entry) in entries {
            guard let raw = Self.rawName(name) else { continue }
            let order = (
                raw[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
                raw[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            )
            rows.append((order, raw, entry))
        }
        rows.sort { $0.order < $1.order }
        for (_, raw, entry) in rows {
            body += raw
            ItemEnvelope.appendUInt64(entry.modified.bitPattern, to: &body)
            body.append(entry.deleted ? 1 : 0)
        }
        let tag = try key.withBytes { Sodium.keyedHash(body, key: $0, length: Self.tagBytes) }
        return Data(body + tag)
    }

    /// Parses and authenticates a manifest with the one of `keys` whose check value it names.
    /// - Returns: The manifest and the keys it is tagged under.
    /// - Throws: ``StorageError`` `.locked` when it names none of `keys` (another process rotated the keyring's
    ///   key since this one was unlocked), `.corrupt` when it does not authenticate (edited, truncated, or from
    ///   another keyring), `.unsupportedVersion` for a newer format.
    static func parse(_ data: Data, keyringID: [UInt8], keys: [DataKeys], path: String) throws -> (
        ItemManifest, DataKeys
    ) {
        let bytes = [UInt8](data)
        let corrupt = StorageError(
            .corrupt, "the item manifest failed authentication: it was edited, truncated or comes from another keyring",
            tier: .secrets, path: path,
            recovery: "Restore the keyring folder from a backup; rollback detection cannot vouch for its items")
        let idStart = magic.count + 1
        let checkStart = idStart + keyringID.count
        let headerSize = checkStart + 16 + 4
        guard bytes.count >= headerSize + tagBytes, bytes.starts(with: magic) else { throw corrupt }
        guard bytes[magic.count] <= version else {
            throw StorageError(
                .unsupportedVersion,
                "the item manifest has format version \(bytes[magic.count]); this program reads up to \(version)",
                tier: .secrets, path: path, recovery: "Open the keyring with the newer program that wrote it")
        }
        let body = Array(bytes[..<(bytes.count - tagBytes)])
        let tag = Array(bytes[(bytes.count - tagBytes)...])
        let keyCheck = Array(body[checkStart..<(checkStart + 16)])
        guard let owner = keys.first(where: { $0.check == keyCheck }) else {
            throw StorageError(
                .locked, "the keyring's data key was rotated by another process since this one unlocked it",
                tier: .secrets, path: path, recovery: "Unlock the keyring again")
        }
        let authentic = try owner.manifest.withBytes { Sodium.keyedHash(body, key: $0, length: tagBytes) } == tag
        guard authentic, bytes[magic.count] == version, Array(body[idStart..<checkStart]) == keyringID else {
            throw corrupt
        }
        let count = body[(headerSize - 4)..<headerSize].reduce(0) { $0 << 8 | Int($1) }
        let entrySize = 16 + 8 + 1
        guard body.count == headerSize + count * entrySize else { throw corrupt }
        var manifest = ItemManifest(keyCheck: keyCheck)
        var offset = headerSize
        for _ in 0..<count {
            let name = Hex.encode(Array(body[offset..<(offset + 16)])) + SecretStore.itemSuffix
            let bits = body[(offset + 16)..<(offset + 24)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            manifest.entries[name] = Entry(modified: Double(bitPattern: bits), deleted: body[offset + 24] != 0)
            offset += entrySize
        }
        return (manifest, owner)
    }

    /// The 16 bytes an item file name stands for, or `nil` for a name that is not an item's.
    static func rawName(_ name: String) -> [UInt8]? {
        // Decoded from the name's UTF-8 in place, without a string for its digits: every write serializes every
        // entry.
        let suffix = SecretStore.itemSuffix.utf8
        let utf8 = name.utf8
        guard utf8.count == 32 + suffix.count, utf8.dropFirst(32).elementsEqual(suffix) else { return nil }
        var raw = [UInt8](repeating: 0, count: 16)
        var index = utf8.startIndex
        for position in 0..<16 {
            guard let high = Hex.digitValue(utf8[index]), let low = Hex.digitValue(utf8[utf8.index(after: index)])
            else {
                return nil
            }
            raw[position] = high << 4 | low
            index = utf8.index(index, offsetBy: 2)
        }
        return raw
    }

}

extension ItemManifest {
    /// The entry recording that `fileName` was deleted at `now` (or just after its last generation).
    func tombstone(_ fileName: String, now: Date) -> Entry {
        Entry(modified: nextGeneration(fileName, now: now).timeIntervalSince1970, deleted: true)
    }
}

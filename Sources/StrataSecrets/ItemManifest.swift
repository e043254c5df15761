package import Foundation
package import StrataCore

/// `items.manifest`: the keyring's authenticated record of every item's generation, so an older copy of an item
/// put back over the current one (a rollback) is refused instead of returning a revoked value; and, from format
/// version 2, the home of small items themselves.
///
/// An item's generation is its authenticated modification time: every write of an item makes it strictly later
/// than the one the manifest holds for that item, and advances the manifest after the item file is durable. A
/// reader reads the manifest first, then the item: an item older than its entry is a rollback. A deleted item
/// keeps a tombstone, so a deleted file put back is refused too.
///
/// An entry may carry the item itself (``Entry/inline``): the same sealed bytes an item file holds, bound to the
/// item's file name as a file's are. The entry then says where the item lives: a file of that name is a leftover
/// (of a crash, or an older copy put back), never read, and removed by the next write of the item. Such an item
/// is replaced with the manifest, whole and tagged, so rolling it back takes an older manifest: the rollback of
/// the whole folder, out of scope.
///
/// From format version 3 the manifest carries a sequence number that every write advances, recorded after the
/// write in ``ManifestAnchor`` (`items.anchor`): an older manifest put back alone is refused too (`rolled-back`),
/// and it names the data key it was rotated from, so an older `keyring.json` put back after a rotation is told
/// from a damaged manifest.
///
/// The file is `STRATASM`, a version byte, the keyring's id, the check value of the data key it is tagged under
/// (the keyring's current key: writers seal items under that key), from version 3 the check value of the key the
/// keyring was last rotated from (16 zero bytes when none) and the sequence number (8 bytes), the entry count
/// (4 bytes), the entries sorted by file name, and a keyed BLAKE2b tag over all of it under a key derived from
/// that data key: editing, truncating or moving it between keyrings is refused. An entry is the name's 16 bytes,
/// the generation's bit pattern and a flags byte (version 1: 1 when deleted; from version 2: bit 0 deleted, bit 1
/// inline, then for an inline entry the sealed item's size in 4 bytes and its bytes). Versions 1 (written before
/// items could be inline) and 2 (before sequence numbers; read as sequence 0) are read; every write writes
/// version 3.
package struct ItemManifest: Sendable, Equatable {
    static let fileName = "items.manifest"
    static let magic = Array("STRATASM".utf8)
    static let version: UInt8 = 3
    static let tagBytes = 32
    static let deletedFlag: UInt8 = 1
    static let inlineFlag: UInt8 = 2
    /// The UTF-8 of ``SecretStore/itemSuffix``, which every item file name ends with.
    static let itemSuffix = Array(SecretStore.itemSuffix.utf8)

    /// The newest generation written for one item.
    package struct Entry: Sendable, Equatable {
        /// The item's modification time (its generation).
        package var modified: Double
        /// Whether the item was deleted at `modified`.
        package var deleted: Bool
        /// The sealed item, when it lives here instead of in a file of its own.
        package var inline: Data? = nil

        package init(modified: Double, deleted: Bool, inline: Data? = nil) {
            self.modified = modified
            self.deleted = deleted
            self.inline = inline
        }
    }

    /// The check value of the data key the manifest is tagged under (``GuardedKey/check()``).
    package var keyCheck: [UInt8]
    /// Entries by item file name.
    package var entries: [String: Entry] = [:]
    /// One past the sequence number of the manifest this one replaced (0 for a manifest of version 2 or older).
    package var sequence: UInt64 = 0
    /// The check value of the data key the keyring was last rotated from, if any.
    package var previousKeyCheck: [UInt8]? = nil

    package init(
        keyCheck: [UInt8], entries: [String: Entry] = [:], sequence: UInt64 = 0, previousKeyCheck: [UInt8]? = nil
    ) {
        self.keyCheck = keyCheck
        self.entries = entries
        self.sequence = sequence
        self.previousKeyCheck = previousKeyCheck
    }

    /// The bytes of a version 3 header after the key check: the previous key's check and the sequence number.
    static let sequenceFieldsSize = 16 + 8

    /// The size of the header before the entry count, for a file of `version`.
    static func headerSize(version: UInt8, keyringIDSize: Int) -> Int {
        magic.count + 1 + keyringIDSize + 16 + (version >= 3 ? sequenceFieldsSize : 0)
    }

    /// The sealed item `fileName` when it lives in the manifest (a file of its name is then a leftover).
    func inlineItem(_ fileName: String) -> Data? { entries[fileName]?.inline }

    /// The bytes of every inline item together.
    var inlineBytes: Int { entries.values.reduce(0) { $0 + ($1.inline?.count ?? 0) } }

    /// Whether an item file holding `modified` is older than this manifest allows.
    package func isRolledBack(_ fileName: String, modified: Date) -> Bool {
        guard let entry = entries[fileName] else { return false }
        let generation = modified.timeIntervalSince1970
        return entry.deleted ? generation <= entry.modified : generation < entry.modified
    }

    /// The modification time for a new write of `fileName` at `now`: strictly after its entry, even when the
    /// clock went back.
    package func nextGeneration(_ fileName: String, now: Date) -> Date {
        guard let entry = entries[fileName], entry.modified >= now.timeIntervalSince1970 else { return now }
        return Date(timeIntervalSince1970: entry.modified.nextUp)
    }

    /// The file's bytes, tagged under `key`.
    package func serialized(keyringID: [UInt8], key: GuardedKey) throws -> Data {
        // A set serializes the whole manifest, so this runs per entry per write: the names are read as two
        // big-endian integers straight from their UTF-8 (their order is the order of the lowercase hex names),
        // the entries sorted as small rows that point into one array, and the body sized before it is filled.
        var named: [(name: String, entry: Entry)] = []
        named.reserveCapacity(entries.count)
        var rows: [(high: UInt64, low: UInt64, index: Int)] = []
        rows.reserveCapacity(entries.count)
        var size = Self.magic.count + 1 + keyringID.count + keyCheck.count + Self.sequenceFieldsSize + 4
        for (name, entry) in entries {
            guard let raw = Self.rawName(name) else { continue }
            rows.append((raw.high, raw.low, named.count))
            named.append((name, entry))
            size += 25 + (entry.inline.map { 4 + $0.count } ?? 0)
        }
        rows.sort { ($0.high, $0.low) < ($1.high, $1.low) }
        var header = Self.magic + [Self.version] + keyringID + keyCheck
        header += previousKeyCheck ?? [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: sequence.bigEndian) { header += $0 }
        var body = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            func put(_ value: UInt64, width: Int = 8) {
                withUnsafeBytes(of: value.bigEndian) {
                    out.baseAddress!.advanced(by: offset).copyMemory(
                        from: $0.baseAddress!.advanced(by: 8 - width), byteCount: width)
                }
                offset += width
            }
            func put(_ bytes: UnsafeRawBufferPointer) {
                if let base = bytes.baseAddress {
                    out.baseAddress!.advanced(by: offset).copyMemory(from: base, byteCount: bytes.count)
                }
                offset += bytes.count
            }
            header.withUnsafeBytes { put($0) }
            put(UInt64(rows.count), width: 4)
            for row in rows {
                let entry = named[row.index].entry
                put(row.high)
                put(row.low)
                put(entry.modified.bitPattern)
                if let inline = entry.inline {
                    out[offset] = Self.inlineFlag
                    offset += 1
                    put(UInt64(inline.count), width: 4)
                    inline.withUnsafeBytes { put($0) }
                } else {
                    out[offset] = entry.deleted ? Self.deletedFlag : 0
                    offset += 1
                }
            }
            initialized = offset
        }
        let tag = try key.withBytes { Sodium.keyedHash(body, key: $0, length: Self.tagBytes) }
        body += tag
        return Data(body)
    }

    /// Parses and authenticates a manifest with the one of `keys` whose check value it names.
    /// - Returns: The manifest and the keys it is tagged under.
    /// - Throws: ``StorageError`` `.locked` when it names none of `keys` (another process rotated the keyring's
    ///   key since this one was unlocked), `.corrupt` when it does not authenticate (edited, truncated, or from
    ///   another keyring), `.unsupportedVersion` for a newer format.
    package static func parse(_ data: Data, keyringID: [UInt8], keys: [DataKeys], path: String) throws -> (
        ItemManifest, DataKeys
    ) {
        let bytes = [UInt8](data)
        let corrupt = StorageError(
            .corrupt, "the item manifest failed authentication: it was edited, truncated or comes from another keyring",
            tier: .secrets, path: path,
            recovery: "Restore the keyring folder from a backup; rollback detection cannot vouch for its items")
        let idStart = magic.count + 1
        let checkStart = idStart + keyringID.count
        guard bytes.count > magic.count, bytes.starts(with: magic) else { throw corrupt }
        let headerSize = Self.headerSize(version: bytes[magic.count], keyringIDSize: keyringID.count) + 4
        guard bytes.count >= headerSize + tagBytes else { throw corrupt }
        guard bytes[magic.count] <= version else {
            throw StorageError(
                .unsupportedVersion,
                "the item manifest has format version \(bytes[magic.count]); this program reads up to \(version)",
                tier: .secrets, path: path, recovery: "Open the keyring with the newer program that wrote it")
        }
        let body = Array(bytes[..<(bytes.count - tagBytes)])
        let tag = Array(bytes[(bytes.count - tagBytes)...])
        let keyCheck = Array(body[checkStart..<(checkStart + 16)])
        // Another keyring's manifest is damage, whatever key it names (the tag below vouches for the id).
        guard Array(body[idStart..<checkStart]) == keyringID else { throw corrupt }
        guard let owner = keys.first(where: { $0.check == keyCheck }) else {
            throw StorageError(
                .locked, "the keyring's data key was rotated by another process since this one unlocked it",
                tier: .secrets, path: path, recovery: "Unlock the keyring again")
        }
        let authentic = try owner.manifest.withBytes { Sodium.keyedHash(body, key: $0, length: tagBytes) } == tag
        guard authentic, bytes[magic.count] >= 1, Array(body[idStart..<checkStart]) == keyringID else {
            throw corrupt
        }
        guard let entries = Self.entries(of: body, version: bytes[magic.count], from: headerSize - 4) else {
            throw corrupt
        }
        var manifest = ItemManifest(keyCheck: keyCheck, entries: entries)
        if bytes[magic.count] >= 3 {
            (manifest.sequence, manifest.previousKeyCheck) = Self.sequenceFields(body, from: checkStart + 16)
        }
        return (manifest, owner)
    }

    /// The entries of an untagged body, from the entry count at `offset` to the end; `nil` when they do not fill
    /// it exactly, or an entry is malformed (an unknown flag, an inline item that is also deleted or empty).
    static func entries(of body: [UInt8], version: UInt8, from offset: Int) -> [String: Entry]? {
        guard offset >= 0, body.count >= offset + 4 else { return nil }
        let count = body[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        var offset = offset + 4
        // Every entry takes at least 25 bytes: a count past what is there is refused before anything is reserved.
        guard count <= (body.count - offset) / 25 else { return nil }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard body.count - offset >= 25 else { return nil }
            let name = Hex.encode(Array(body[offset..<(offset + 16)])) + SecretStore.itemSuffix
            let bits = body[(offset + 16)..<(offset + 24)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let flags = body[offset + 24]
            offset += 25
            var entry = Entry(modified: Double(bitPattern: bits), deleted: false)
            if version < 2 {
                entry.deleted = flags != 0
            } else if flags == Self.inlineFlag {
                guard body.count - offset >= 4 else { return nil }
                let size = body[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                offset += 4
                guard size > 0, body.count - offset >= size else { return nil }
                entry.inline = Data(body[offset..<(offset + size)])
                offset += size
            } else {
                guard flags & ~Self.deletedFlag == 0 else { return nil }
                entry.deleted = flags == Self.deletedFlag
            }
            guard entries.updateValue(entry, forKey: name) == nil else { return nil }
        }
        return offset == body.count ? entries : nil
    }

    /// The sequence number and the previous key's check value of a version 3 header, from `offset` (the end of
    /// the key check).
    static func sequenceFields(_ body: [UInt8], from offset: Int) -> (UInt64, [UInt8]?) {
        let previous = Array(body[offset..<(offset + 16)])
        let sequence = body[(offset + 16)..<(offset + 24)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (sequence, previous.allSatisfy { $0 == 0 } ? nil : previous)
    }

    /// What a manifest's header says without the key (nothing is authenticated: for diagnostics): its sequence
    /// number and the check values of the key it is tagged under and of the key it was rotated from; `nil` when
    /// the bytes are not a manifest this program reads.
    package static func unauthenticatedHeader(_ data: Data, keyringIDSize: Int = 16) -> (
        sequence: UInt64, keyCheck: [UInt8], previousKeyCheck: [UInt8]?
    )? {
        let bytes = [UInt8](data)
        guard bytes.count > magic.count, bytes.starts(with: magic), bytes[magic.count] <= version else { return nil }
        let checkStart = magic.count + 1 + keyringIDSize
        guard bytes.count >= headerSize(version: bytes[magic.count], keyringIDSize: keyringIDSize) + 4 + tagBytes
        else { return nil }
        let keyCheck = Array(bytes[checkStart..<(checkStart + 16)])
        guard bytes[magic.count] >= 3 else { return (0, keyCheck, nil) }
        let (sequence, previous) = sequenceFields(bytes, from: checkStart + 16)
        return (sequence, keyCheck, previous)
    }

    /// The items a manifest holds inline, by file name, read without the key (nothing is authenticated: for counts
    /// and checks that need no key); `nil` when the bytes are not a manifest this program reads.
    package static func unauthenticatedInlineItems(_ data: Data, keyringIDSize: Int = 16) -> [String: Data]? {
        unauthenticatedEntries(data, keyringIDSize: keyringIDSize)?.compactMapValues(\.inline)
    }

    /// Every entry of a manifest, by file name, read without the key (nothing is authenticated: for checks that need
    /// no key); `nil` when the bytes are not a manifest this program reads.
    package static func unauthenticatedEntries(_ data: Data, keyringIDSize: Int = 16) -> [String: Entry]? {
        let bytes = [UInt8](data)
        guard bytes.count > magic.count, bytes.starts(with: magic), bytes[magic.count] <= version else { return nil }
        let headerSize = Self.headerSize(version: bytes[magic.count], keyringIDSize: keyringIDSize) + 4
        guard bytes.count >= headerSize + tagBytes else { return nil }
        return entries(
            of: Array(bytes[..<(bytes.count - tagBytes)]), version: bytes[magic.count], from: headerSize - 4)
    }

    /// The 16 bytes an item file name stands for, as two big-endian integers, or `nil` for a name that is not an
    /// item's.
    static func rawName(_ name: String) -> (high: UInt64, low: UInt64)? {
        // Decoded from the name's UTF-8 in place, without a string or an array for its digits: every write
        // serializes every entry.
        var name = name
        return name.withUTF8 { utf8 -> (high: UInt64, low: UInt64)? in
            guard utf8.count == 32 + itemSuffix.count,
                itemSuffix.withUnsafeBytes({ memcmp(utf8.baseAddress! + 32, $0.baseAddress!, $0.count) == 0 })
            else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            for position in 0..<32 {
                // A lowercase or uppercase hex digit's value, else 16 or more.
                let byte = utf8[position]
                let decimal = byte &- UInt8(ascii: "0")
                let letter = (byte | 0x20) &- UInt8(ascii: "a")
                let digit = decimal < 10 ? decimal : letter < 6 ? letter + 10 : 16
                guard digit < 16 else { return nil }
                if position < 16 {
                    words.0 = words.0 << 4 | UInt64(digit)
                } else {
                    words.1 = words.1 << 4 | UInt64(digit)
                }
            }
            return (words.0, words.1)
        }
    }
}

extension ItemManifest {
    /// The entry recording that `fileName` was deleted at `now` (or just after its last generation).
    package func tombstone(_ fileName: String, now: Date) -> Entry {
        Entry(modified: nextGeneration(fileName, now: now).timeIntervalSince1970, deleted: true)
    }
}

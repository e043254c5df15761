/// The catalog's entries in memory: keys as UTF-8 bytes in one arena, entries in one array, and an
/// open-addressing index of 32-bit slot numbers. About 60 bytes a key all told (a `Dictionary` of `String` keys
/// takes well over twice that), and no allocation per key, so a million keys load in a fraction of a second.
///
/// Keys compare by their exact bytes, like ``ExactString``. Removing a key leaves a tombstone in the index and a
/// dead slot; both are reclaimed by the next rebuild, which happens when they outnumber the live keys.
struct CatalogTable {
    private struct Slot {
        var keyOffset: UInt32
        var keyLength: UInt16
        var isLive: Bool
        var entry: CatalogEntry
    }

    private static let empty: Int32 = 0
    private static let tombstone: Int32 = -1

    private var arena: [UInt8] = []
    private var slots: [Slot] = []
    /// Slot number + 1, or `empty`, or `tombstone`. Its size is a power of two, at least twice the slots.
    private var index: [Int32] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// Makes room for `capacity` keys without rebuilding the index.
    mutating func reserveCapacity(_ capacity: Int) {
        slots.reserveCapacity(capacity)
        arena.reserveCapacity(capacity * 24)
        if index.count < capacity * 2 { rebuild(indexSize: Self.indexSize(for: capacity)) }
    }

    subscript(key: String) -> CatalogEntry? {
        var key = key
        return key.withUTF8 { bytes in
            let (position, found) = find(UnsafeRawBufferPointer(bytes))
            _ = position
            return found.map { slots[$0].entry }
        }
    }

    /// Sets the entry of `key`.
    mutating func set(_ key: String, _ entry: CatalogEntry) {
        var key = key
        key.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            let (position, found) = find(raw)
            if let found {
                slots[found].entry = entry
                return
            }
            let offset = UInt32(truncatingIfNeeded: arena.count)
            arena.append(contentsOf: raw)
            slots.append(Slot(keyOffset: offset, keyLength: UInt16(raw.count), isLive: true, entry: entry))
            index[position] = Int32(slots.count)
            count += 1
        }
        if slots.count * 2 > index.count { rebuild(indexSize: Self.indexSize(for: count)) }
    }

    /// Removes `key`, if present.
    mutating func remove(_ key: String) {
        var key = key
        let removed = key.withUTF8 { bytes -> Bool in
            let (position, found) = find(UnsafeRawBufferPointer(bytes))
            guard let found else { return false }
            slots[found].isLive = false
            index[position] = Self.tombstone
            count -= 1
            return true
        }
        if removed, slots.count > 1024, count * 2 < slots.count { rebuild(indexSize: Self.indexSize(for: count)) }
    }

    /// Calls `body` with every live key and its entry, in no particular order.
    func forEach(_ body: (String, CatalogEntry) throws -> Void) rethrows {
        for slot in slots where slot.isLive {
            try body(key(of: slot), slot.entry)
        }
    }

    /// The live keys that start with `prefix`'s bytes, unsorted.
    func keys(prefix: String) -> [String] {
        let wanted = Array(prefix.utf8)
        var keys: [String] = []
        arena.withUnsafeBytes { arena in
            for slot in slots where slot.isLive && Int(slot.keyLength) >= wanted.count {
                let start = Int(slot.keyOffset)
                let bytes = UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(slot.keyLength))])
                if bytes.starts(with: wanted) { keys.append(String(decoding: bytes, as: UTF8.self)) }
            }
        }
        return keys
    }

    private func key(of slot: Slot) -> String {
        arena.withUnsafeBytes { arena in
            let start = Int(slot.keyOffset)
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(slot.keyLength))]), as: UTF8.self)
        }
    }

    /// The index position where `key` is, or where it would go, and its slot if present.
    private func find(_ key: UnsafeRawBufferPointer) -> (position: Int, slot: Int?) {
        let mask = index.count - 1
        var position = Self.hash(key) & mask
        var firstTombstone: Int?
        return arena.withUnsafeBytes { arena in
            while true {
                let value = index[position]
                if value == Self.empty { return (firstTombstone ?? position, nil) }
                if value == Self.tombstone {
                    if firstTombstone == nil { firstTombstone = position }
                } else {
                    let slot = slots[Int(value) - 1]
                    if Int(slot.keyLength) == key.count {
                        let start = Int(slot.keyOffset)
                        let stored = UnsafeRawBufferPointer(rebasing: arena[start..<(start + key.count)])
                        if stored.elementsEqual(key) { return (position, Int(value) - 1) }
                    }
                }
                position = (position + 1) & mask
            }
        }
    }

    /// Rebuilds the index (and drops dead slots and their key bytes).
    private mutating func rebuild(indexSize: Int) {
        if count < slots.count {
            var newArena: [UInt8] = []
            newArena.reserveCapacity(arena.count)
            var newSlots: [Slot] = []
            newSlots.reserveCapacity(count)
            for var slot in slots where slot.isLive {
                let start = Int(slot.keyOffset)
                let end = start + Int(slot.keyLength)
                slot.keyOffset = UInt32(truncatingIfNeeded: newArena.count)
                newArena.append(contentsOf: arena[start..<end])
                newSlots.append(slot)
            }
            arena = newArena
            slots = newSlots
        }
        index = Array(repeating: Self.empty, count: indexSize)
        let mask = indexSize - 1
        arena.withUnsafeBytes { arena in
            for (number, slot) in slots.enumerated() {
                let start = Int(slot.keyOffset)
                var position =
                    Self.hash(UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(slot.keyLength))])) & mask
                while index[position] != Self.empty { position = (position + 1) & mask }
                index[position] = Int32(number + 1)
            }
        }
    }

    private static func indexSize(for count: Int) -> Int {
        var size = 16
        while size < count * 2 + 2 { size <<= 1 }
        return size
    }

    /// FNV-1a over the bytes, finished with a multiply-xorshift so the low bits used by the mask are mixed.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash ^= hash >> 29
        hash &*= 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return Int(truncatingIfNeeded: hash)
    }
}

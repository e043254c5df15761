internal import CStrataSystem
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The catalog's entries in memory: keys as UTF-8 bytes in one arena, entries in one array, and an
/// open-addressing index whose cells hold a slot number and 32 bits of the key's hash. About 70 bytes a key all
/// told (a `Dictionary` of `String` keys takes well over twice that), and no allocation per key, so a million
/// keys load in a fraction of a second. The hash bits in the index let a probe skip other keys' cells without
/// touching their slots or key bytes: a lookup costs about one cache miss in the index and one in the arena.
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

    /// An index cell: the high 32 bits of the key's hash, then slot number + 1 (0: empty, all ones: tombstone).
    private static let empty: UInt64 = 0
    private static let tombstone: UInt64 = .max

    private var arena: [UInt8] = []
    private var slots: [Slot] = []
    /// Cells (see ``empty``). Its size is a power of two, at least twice the slots.
    private var index: [UInt64] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// Makes room for `capacity` keys without rebuilding the index.
    mutating func reserveCapacity(_ capacity: Int) {
        slots.reserveCapacity(capacity)
        arena.reserveCapacity(capacity * 24)
        if index.count < capacity * 2 { rebuild(indexSize: Self.indexSize(for: capacity)) }
    }

    /// The entry of `key`, found by its UTF-8 bytes where the string keeps them (no copy, no bridging).
    subscript(key: String) -> CatalogEntry? {
        if let found = key.utf8.withContiguousStorageIfAvailable({ self[UnsafeRawBufferPointer($0)] }) {
            return found
        }
        var key = key
        return key.withUTF8 { self[UnsafeRawBufferPointer($0)] }
    }

    /// The entry of the key whose UTF-8 bytes are `key`.
    subscript(key: UnsafeRawBufferPointer) -> CatalogEntry? {
        find(key, hash: Self.hash(key)).slot.map { slots[$0].entry }
    }

    /// Sets the entry of `key`.
    mutating func set(_ key: String, _ entry: CatalogEntry) {
        var key = key
        key.withUTF8 { set(UnsafeRawBufferPointer($0), entry) }
    }

    /// Sets the entry of the key whose UTF-8 bytes are `key`.
    mutating func set(_ key: UnsafeRawBufferPointer, _ entry: CatalogEntry) {
        set(key, hash: Self.hash(key), entry)
    }

    /// Sets the entry of the key whose UTF-8 bytes are `key` and whose ``hash(_:)`` is `hash`.
    mutating func set(_ key: UnsafeRawBufferPointer, hash: UInt64, _ entry: CatalogEntry) {
        let (position, found) = find(key, hash: hash)
        if let found {
            slots[found].entry = entry
            return
        }
        let offset = UInt32(truncatingIfNeeded: arena.count)
        arena.append(contentsOf: key)
        slots.append(Slot(keyOffset: offset, keyLength: UInt16(key.count), isLive: true, entry: entry))
        index[position] = Self.cell(hash: hash, slot: slots.count - 1)
        count += 1
        if slots.count * 2 > index.count { rebuild(indexSize: Self.indexSize(for: count)) }
    }

    /// Removes `key`, if present.
    mutating func remove(_ key: String) {
        var key = key
        key.withUTF8 { remove(UnsafeRawBufferPointer($0)) }
    }

    /// Removes the key whose UTF-8 bytes are `key`, if present.
    mutating func remove(_ key: UnsafeRawBufferPointer) {
        remove(key, hash: Self.hash(key))
    }

    /// Removes the key whose UTF-8 bytes are `key` and whose ``hash(_:)`` is `hash`, if present.
    mutating func remove(_ key: UnsafeRawBufferPointer, hash: UInt64) {
        let (position, found) = find(key, hash: hash)
        guard let found else { return }
        slots[found].isLive = false
        index[position] = Self.tombstone
        count -= 1
        if slots.count > 1024, count * 2 < slots.count { rebuild(indexSize: Self.indexSize(for: count)) }
    }

    /// Starts loading the index cell a key with this hash starts probing at. Loading a log, the cells of a
    /// batch of records are prefetched before any is applied, so their cache misses overlap instead of queueing.
    func prefetch(hash: UInt64) {
        index.withUnsafeBufferPointer { index in
            strata_prefetch(index.baseAddress! + (Int(truncatingIfNeeded: hash) & (index.count - 1)))
        }
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
    private func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> (position: Int, slot: Int?) {
        let mask = index.count - 1
        let tag = hash >> 32
        var position = Int(truncatingIfNeeded: hash) & mask
        var firstTombstone: Int?
        return arena.withUnsafeBytes { arena in
            index.withUnsafeBufferPointer { index in
                while true {
                    let cell = index[position]
                    if cell == Self.empty { return (firstTombstone ?? position, nil) }
                    if cell == Self.tombstone {
                        if firstTombstone == nil { firstTombstone = position }
                    } else if cell >> 32 == tag {
                        let number = Int(cell & 0xFFFF_FFFF) - 1
                        let slot = slots[number]
                        if Int(slot.keyLength) == key.count,
                            key.count == 0
                                || memcmp(arena.baseAddress! + Int(slot.keyOffset), key.baseAddress!, key.count) == 0
                        {
                            return (position, number)
                        }
                    }
                    position = (position + 1) & mask
                }
            }
        }
    }

    private static func cell(hash: UInt64, slot: Int) -> UInt64 {
        (hash >> 32) << 32 | UInt64(slot + 1)
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
                let hash = Self.hash(UnsafeRawBufferPointer(rebasing: arena[start..<(start + Int(slot.keyLength))]))
                var position = Int(truncatingIfNeeded: hash) & mask
                while index[position] != Self.empty { position = (position + 1) & mask }
                index[position] = Self.cell(hash: hash, slot: number)
            }
        }
    }

    private static func indexSize(for count: Int) -> Int {
        var size = 16
        while size < count * 2 + 2 { size <<= 1 }
        return size
    }

    /// The last `bytes.count - offset` bytes (fewer than eight) as the low bytes of a word, loaded without a loop:
    /// as the tail of the last eight bytes when there are eight, else as a four-, two- and one-byte load.
    @inline(__always)
    private static func tail(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> UInt64 {
        let remaining = bytes.count - offset
        guard remaining > 0, let base = bytes.baseAddress else { return 0 }
        if bytes.count >= 8 {
            let word = base.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self).littleEndian
            return word >> UInt64((8 - remaining) * 8)
        }
        var tail: UInt64 = 0
        var at = offset
        var shift: UInt64 = 0
        if remaining & 4 != 0 {
            tail = UInt64(base.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
            at += 4
            shift = 32
        }
        if remaining & 2 != 0 {
            tail |= UInt64(base.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) << shift
            at += 2
            shift += 16
        }
        if remaining & 1 != 0 { tail |= UInt64(base.load(fromByteOffset: at, as: UInt8.self)) << shift }
        return tail
    }

    /// Eight bytes at a time, each word mixed in with a multiply and a shift (the hash never leaves the process,
    /// so native byte order is fine), then finished so that both the low bits (the position) and the high bits
    /// (the tag kept in the index) depend on every byte.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while bytes.count - offset >= 8 {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            offset += 8
        }
        hash = (hash ^ tail(bytes, from: offset)) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 29
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        return hash
    }
}

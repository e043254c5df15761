package import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A read-only copy of a suite's values for the reads that follow a change: one open-addressed table, keyed by a
/// SipHash-1-3 of each key's UTF-8 bytes under a key drawn once per process, the keys' bytes in one buffer.
///
/// `[ExactString: PropertyListValue]` costs a read about 350 instructions in `Hasher` alone (its seeding, buffering
/// and finalization around the same SipHash-1-3) of the 770 a read took; hashing the bytes in one call and comparing
/// them with one `memcmp` against the buffer skip that and `ExactString`'s two-closure equality. The hash stays keyed
/// and the per-process key secret, so keys chosen to collide (a hostile suite file) cannot be computed in advance.
///
/// The index answers for exactly the values it was built from: ``DefaultsStore/State`` drops it at every change of
/// its values and builds it again only after as many reads as it holds keys, so a workload that changes values
/// between reads pays at most one build per that many reads.
package struct ReadIndex {
    /// Each slot: the entry's number plus one (0: empty).
    private var slots: [Int32]
    /// The full hash of each slot's key, compared before its bytes.
    private var hashes: [UInt64]
    private var values: [PropertyListValue] = []
    /// Where each entry's key starts in ``keyBytes``, and its length.
    private var keyStarts: [Int] = []
    private var keyLengths: [Int] = []
    private var keyBytes: [UInt8] = []
    private let mask: Int

    /// This process's hash key, drawn once.
    private static let hashKey: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// Indexes `dictionary`.
    package init(_ dictionary: [ExactString: PropertyListValue]) {
        var capacity = 16
        while capacity < dictionary.count * 2 { capacity *= 2 }
        slots = [Int32](repeating: 0, count: capacity)
        hashes = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
        values.reserveCapacity(dictionary.count)
        keyStarts.reserveCapacity(dictionary.count)
        keyLengths.reserveCapacity(dictionary.count)
        let key = Self.hashKey
        for (name, value) in dictionary {
            let hash = Self.withBytes(of: name) { Self.sipHash13($0, key: key) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            values.append(value)
            slots[slot] = Int32(values.count)
            hashes[slot] = hash
            keyStarts.append(keyBytes.count)
            keyLengths.append(name.string.utf8.count)
            keyBytes.append(contentsOf: name.string.utf8)
        }
    }

    /// The value of `key`, matched by its exact scalars, or `nil` when the indexed values have none.
    package func value(for key: ExactString) -> PropertyListValue? {
        Self.withBytes(of: key) { bytes in
            let hash = Self.sipHash13(bytes, key: Self.hashKey)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = Int(slots[slot])
                if entry == 0 { return nil }
                if hashes[slot] == hash, keyLengths[entry - 1] == bytes.count {
                    let start = keyStarts[entry - 1]
                    let same = keyBytes.withUnsafeBytes { stored in
                        bytes.count == 0 || memcmp(stored.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0
                    }
                    if same { return values[entry - 1] }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Runs `body` over the UTF-8 bytes of `key` (in place for a native string, else copied).
    private static func withBytes<R>(of key: ExactString, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = key.string.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(key.string.utf8).withUnsafeBytes(body)
    }

    /// SipHash-1-3 of `bytes` under `key` (one compression round per 8 bytes, three to finish), the variant Swift's
    /// `Hasher` uses.
    package static func sipHash13(_ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64)) -> UInt64 {
        sipHash(bytes, key: key, compressionRounds: 1, finalizationRounds: 3)
    }

    /// SipHash-c-d of `bytes` under `key` (the reference algorithm; SipHash-2-4 for its published test vectors).
    @inline(__always)
    package static func sipHash(
        _ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64), compressionRounds: Int, finalizationRounds: Int
    ) -> UInt64 {
        var v0: UInt64 = key.0 ^ 0x736f_6d65_7073_6575
        var v1: UInt64 = key.1 ^ 0x646f_7261_6e64_6f6d
        var v2: UInt64 = key.0 ^ 0x6c79_6765_6e65_7261
        var v3: UInt64 = key.1 ^ 0x7465_6462_7974_6573
        @inline(__always) func round() {
            v0 &+= v1
            v1 = (v1 << 13) | (v1 >> 51)
            v1 ^= v0
            v0 = (v0 << 32) | (v0 >> 32)
            v2 &+= v3
            v3 = (v3 << 16) | (v3 >> 48)
            v3 ^= v2
            v0 &+= v3
            v3 = (v3 << 21) | (v3 >> 43)
            v3 ^= v0
            v2 &+= v1
            v1 = (v1 << 17) | (v1 >> 47)
            v1 ^= v2
            v2 = (v2 << 32) | (v2 >> 32)
        }
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            v3 ^= word
            for _ in 0..<compressionRounds { round() }
            v0 ^= word
            offset += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while offset < count {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        v3 ^= last
        for _ in 0..<compressionRounds { round() }
        v0 ^= last
        v2 ^= 0xff
        for _ in 0..<finalizationRounds { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }
}

/// Comparisons of short byte runs — member names, mostly — inlined into their callers: a call to `memcmp` costs
/// more than comparing a name of a few bytes, and the decoder compares one for every member it reads.
enum ByteSpans {
    /// Whether the `count` bytes at `first` and at `second` are the same, compared a word of eight (or four, two,
    /// one) at a time.
    @inline(__always)
    static func equal(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                if first.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    != second.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                {
                    return false
                }
                offset += 8
            }
            // The last word ends at the last byte, overlapping bytes already compared.
            return offset == count
                || first.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == second.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        var offset = 0
        if count & 4 != 0 {
            if first.loadUnaligned(as: UInt32.self) != second.loadUnaligned(as: UInt32.self) { return false }
            offset = 4
        }
        if count & 2 != 0 {
            if first.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
                != second.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
            {
                return false
            }
            offset += 2
        }
        return count & 1 == 0
            || first.load(fromByteOffset: offset, as: UInt8.self) == second.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// The `count` bytes at `start` (fewer than eight) as one word, the first byte lowest and the bytes above
    /// them zero: three loads at most, and no byte past `start + count` is read.
    @inline(__always)
    static func partialWord(_ start: UnsafeRawPointer, count: Int) -> UInt64 {
        var word: UInt64 = 0
        var shift: UInt64 = 0
        var offset = 0
        if count & 4 != 0 {
            word = UInt64(UInt32(littleEndian: start.loadUnaligned(as: UInt32.self)))
            shift = 32
            offset = 4
        }
        if count & 2 != 0 {
            word |= UInt64(UInt16(littleEndian: start.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) << shift
            shift += 16
            offset += 2
        }
        if count & 1 != 0 { word |= UInt64(start.load(fromByteOffset: offset, as: UInt8.self)) << shift }
        return word
    }

    /// Whether two buffers hold the same bytes.
    @inline(__always)
    static func equal(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Bool {
        guard first.count == second.count else { return false }
        guard let one = first.baseAddress, let other = second.baseAddress else { return true }
        return equal(one, other, count: first.count)
    }
}

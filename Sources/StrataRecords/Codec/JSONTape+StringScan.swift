/// The search for a string's end, eight bytes at a time: the tape's parse and the encoder's check of names both
/// look for the bytes a JSON string cannot hold as they stand.
extension JSONTape {
    /// The high bit of each byte of `word` that may be a quote, a backslash or a control character (below 0x20),
    /// the bytes in little-endian order: zero exactly when there is none. A set bit can come from a borrow out of
    /// a special byte below it, never from other bytes, so the lowest set bit marks the first special byte.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word))
            & 0x8080_8080_8080_8080
    }

    /// The high bit of each byte of `word` that is a quote, a backslash, a control character (below 0x20) or not
    /// ASCII (0x80 and up), the bytes in little-endian order: zero exactly when there is none. As in
    /// ``specialBytes(_:)``, a set bit can come from a borrow only out of such a byte below it, so the lowest set
    /// bit marks the first one. Cheaper than ``specialBytes(_:)``: a byte of 0x80 and up sets its own bit, so no
    /// term needs to mask the high bytes out.
    @inline(__always)
    static func specialOrNonASCIIBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // `x - 1` of a lane sets its high bit when the lane is 0 (the byte sought) or 0x81 and up (the byte is
        // not ASCII, which `word` flags anyway); `word - 0x20` sets it for a control character.
        let quote = (word ^ (ones &* 0x22)) &- ones
        let backslash = (word ^ (ones &* 0x5C)) &- ones
        let control = word &- (ones &* 0x20)
        return (quote | backslash | control | word) & 0x8080_8080_8080_8080
    }

    /// The offset of the first quote, backslash or control character in the `count` bytes at `base`, from `start` on
    /// (`count` when there is none), found eight bytes at a time, and whether every byte before it is ASCII. The scan stops at the first
    /// byte that is special or not ASCII (``specialOrNonASCIIBytes(_:)``): for the ASCII strings of nearly every
    /// record that is the end; after a byte that is not ASCII, ``firstSpecial(_:count:from:)`` finds the end.
    @inline(__always)
    static func firstSpecialOrNonASCII(_ base: UnsafeRawPointer, count: Int, from start: Int) -> (
        offset: Int, isASCII: Bool
    ) {
        var position = start
        while position + 8 <= count {
            // Little-endian, so that the lowest bits are the first byte on every machine.
            let stops = specialOrNonASCIIBytes(
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
            if stops != 0 {
                position += stops.trailingZeroBitCount / 8
                if base.load(fromByteOffset: position, as: UInt8.self) < 0x80 { return (position, true) }
                return (firstSpecial(base, count: count, from: position), false)
            }
            position += 8
        }
        while position < count {
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            if byte >= 0x80 { return (firstSpecial(base, count: count, from: position), false) }
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { break }
            position += 1
        }
        return (position, true)
    }

    /// The offset of the first quote, backslash or control character in the `count` bytes at `base`, from `start` on (`count` when there is
    /// none), found eight bytes at a time: in each word, a byte's flag can be set by a borrow only from a special
    /// byte below it, so the lowest flag is the first special byte.
    static func firstSpecial(_ base: UnsafeRawPointer, count: Int, from start: Int) -> Int {
        var position = start
        while position + 8 <= count {
            let special = specialBytes(
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
            if special != 0 { return position + special.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < count {
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { break }
            position += 1
        }
        return position
    }
}

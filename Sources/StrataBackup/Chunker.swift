/// Content-defined chunking with a gear rolling hash, FastCDC style: a cut falls where the hash of the last ~64
/// bytes matches a mask, so inserting bytes moves only the cuts near the insertion, and equal runs of content
/// make equal chunks wherever they sit.
///
/// No cut before ``minimum`` bytes; between it and ``average`` a harder mask (two bits more), after it an easier
/// one (two bits fewer), which narrows the spread of sizes around the average ("normalized chunking"); a cut is
/// forced at ``maximum``. The gear table (256 random words) comes from the repository key, so where the cuts
/// fall — and so the chunk sizes an observer of the packs could see — depends on the key, not only the content.
struct Chunker: Sendable {
    /// The smallest chunk, except a file's last.
    let minimum: Int
    /// The size chunks average on random content (a power of two).
    let average: Int
    /// The largest chunk.
    let maximum: Int
    private let table: [UInt64]
    private let maskSmall: UInt64
    private let maskLarge: UInt64

    /// - Parameters:
    ///   - table: 256 words.
    ///   - minimum, average, maximum: Sizes in bytes; `average` is rounded down to a power of two.
    init(table: [UInt64], minimum: Int, average: Int, maximum: Int) {
        precondition(table.count == 256 && minimum > 0 && minimum <= average && average <= maximum)
        self.table = table
        self.minimum = minimum
        self.average = average
        self.maximum = maximum
        let bits = UInt64(Int.bitWidth - 1 - average.leadingZeroBitCount)
        // The top bits of the hash depend on the most bytes of the window: the masks take those.
        maskSmall = bits + 2 >= 64 ? ~0 : ((1 << (bits + 2)) - 1) << (64 - (bits + 2))
        maskLarge = bits <= 2 ? 0 : ((1 << (bits - 2)) - 1) << (64 - (bits - 2))
    }

    /// The length of the first chunk of `buffer`.
    /// - Parameters:
    ///   - buffer: The bytes from the chunk's start: at least ``maximum`` of them, or the rest of the input.
    ///   - isEnd: Whether `buffer` holds the rest of the input (then a chunk may be shorter than ``minimum``).
    func cut(_ buffer: UnsafeRawBufferPointer, isEnd: Bool) -> Int {
        let count = buffer.count
        precondition(isEnd || count >= maximum)
        if count <= minimum { return count }
        let normal = min(average, count)
        let end = min(maximum, count)
        return table.withUnsafeBufferPointer { gear in
            var hash: UInt64 = 0
            var index = minimum
            // The window starts 64 bytes before the first place a cut may fall, so a cut depends on content only.
            var warm = max(0, minimum - 64)
            while warm < minimum {
                hash = (hash << 1) &+ gear[Int(buffer[warm])]
                warm += 1
            }
            while index < normal {
                hash = (hash << 1) &+ gear[Int(buffer[index])]
                if hash & maskSmall == 0 { return index + 1 }
                index += 1
            }
            while index < end {
                hash = (hash << 1) &+ gear[Int(buffer[index])]
                if hash & maskLarge == 0 { return index + 1 }
                index += 1
            }
            return end
        }
    }
}

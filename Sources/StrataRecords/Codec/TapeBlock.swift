import Synchronization

/// The first storage of every ``JSONTape``: one block, kept between decodes, that holds a record's entries and
/// member names. Taking it is one atomic exchange instead of a `malloc` and a `free` per decode; a thread that
/// finds it taken (another is decoding) allocates a block of its own, and a block given back while the spare slot
/// is full is freed.
enum TapeBlock {
    /// The entries a block holds (a tape that needs more moves them to storage of their own).
    static var entries: Int { 128 }
    /// The member names a block holds.
    static var names: Int { 32 }
    static var byteCount: Int {
        entries * MemoryLayout<JSONTape.Entry>.stride + names * MemoryLayout<UInt64>.stride
    }

    /// The address of the spare block, or 0 while it is taken.
    private static let spare = Atomic<UInt>(0)

    /// A block of ``byteCount`` bytes, the caller's until it gives it back with ``give(_:)``.
    static func take() -> UnsafeMutableRawPointer {
        if let block = UnsafeMutableRawPointer(bitPattern: spare.exchange(0, ordering: .acquiring)) { return block }
        return .allocate(byteCount: byteCount, alignment: 16)
    }

    /// Keeps `block` (from ``take()``) as the spare, or frees it when there is one already.
    static func give(_ block: UnsafeMutableRawPointer) {
        let kept = spare.compareExchange(expected: 0, desired: UInt(bitPattern: block), ordering: .releasing).exchanged
        if !kept { block.deallocate() }
    }
}

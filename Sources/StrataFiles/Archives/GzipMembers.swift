import Foundation
import StrataCore

/// Compresses a stream into a gzip file of many members (RFC 1952 §2.2: a gzip file is a series of members,
/// and every reader concatenates them), one per block of the input, each compressed on its own with libdeflate on
/// a worker while the calling thread reads the next block and writes finished ones in order.
///
/// Independent members are what let libdeflate, which only compresses whole buffers, be used at all. A member
/// of 1 MiB costs under 0.1% of ratio against one stream (its first 32 KiB have no history; 8 MiB members gain only
/// 0.04% on PDF-like data, 18 header and trailer bytes a member are 0.003%); what separates libdeflate's level 6 from
/// `gzip -6` is its shorter match search, which ``LevelBlend`` makes up for. Memory is bounded by `threads` blocks
/// in flight.
struct GzipMembers {
    /// The input block each member holds. The default is 1 MiB.
    var blockSize = 1 << 20
    var level: Int32
    var threads: Int
    /// The member header: `1f 8b 08 00`, modification time, extra flags, operating system.
    var header: [UInt8]

    /// Compresses everything `read` returns (it fills the buffer it is given and returns how many bytes, 0 at
    /// the end), handing the members to `sink` in order. Empty input still makes one (empty) member.
    ///
    /// Blocks are read into, and members compressed into, a pool of ``Buffer``s that holds one more than the jobs
    /// in flight: its memory does not grow with the input.
    /// - Returns: The number of input bytes.
    func compress(
        read: (UnsafeMutableRawBufferPointer) throws -> Int, sink: (UnsafeRawBufferPointer) throws -> Void,
        progress: (Int) throws -> Void
    ) throws -> Int {
        var work = OrderedWork<Buffer>(threads: threads)
        var pool: [Buffer] = []
        var total = 0
        func consume(_ buffer: Buffer) throws {
            try sink(buffer.member)
            pool.append(buffer)
        }
        var submitted = 0
        var levels = LevelBlend(level: level)
        while true {
            let buffer = pool.popLast() ?? Buffer(blockSize: blockSize)
            buffer.inputCount = 0
            while buffer.inputCount < blockSize {
                let got = try read(UnsafeMutableRawBufferPointer(rebasing: buffer.input[buffer.inputCount...]))
                if got == 0 { break }
                buffer.inputCount += got
            }
            let count = buffer.inputCount
            if count == 0 && submitted > 0 { break }
            let (level, header) = (levels.level(forNext: count), header)
            try work.submit(
                cost: 2 * count,
                {
                    try buffer.compress(level: level, header: header)
                    return buffer
                }, consume: consume)
            submitted += 1
            total += count
            try progress(total)
            if count < blockSize { break }
        }
        try work.finish(consume: consume)
        return total
    }
}

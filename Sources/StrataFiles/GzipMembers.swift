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
    /// - Returns: The number of input bytes.
    func compress(
        read: (UnsafeMutableRawBufferPointer) throws -> Int, sink: (UnsafeRawBufferPointer) throws -> Void,
        progress: (Int) throws -> Void
    ) throws -> Int {
        var work = OrderedWork<[UInt8]>(threads: threads)
        var total = 0
        func consume(_ member: [UInt8]) throws { try member.withUnsafeBytes { try sink($0) } }
        var submitted = 0
        var levels = LevelBlend(level: level)
        while true {
            var failure: (any Error)?
            let block = [UInt8](unsafeUninitializedCapacity: blockSize) { buffer, count in
                count = 0
                do {
                    while count < buffer.count {
                        let got = try read(
                            UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])))
                        if got == 0 { break }
                        count += got
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            if block.isEmpty && submitted > 0 { break }
            let (level, header) = (levels.level(forNext: block.count), header)
            try work.submit(
                cost: 2 * block.count, { try Self.member(of: block, level: level, header: header) }, consume: consume)
            submitted += 1
            total += block.count
            try progress(total)
            if block.count < blockSize { break }
        }
        try work.finish(consume: consume)
        return total
    }

    /// One gzip member: the header, `block` as one raw deflate stream, its CRC-32 and size.
    /// - Parameter level: libdeflate's level for this member.
    static func member(of block: [UInt8], level: Int32, header: [UInt8]) throws -> [UInt8] {
        let compressor = try LibDeflate.Compressor(level: level)
        let crc = block.withUnsafeBytes { LibDeflate.crc32($0) }
        let room = compressor.bound(block.count)
        return try [UInt8](unsafeUninitializedCapacity: header.count + room + 8) { output, count in
            let raw = UnsafeMutableRawBufferPointer(output)
            raw.copyBytes(from: header)
            let body = UnsafeMutableRawBufferPointer(rebasing: raw[header.count..<(header.count + room)])
            guard let produced = block.withUnsafeBytes({ compressor.compress($0, into: body) }) else {
                count = 0
                throw StorageError(.io, "libdeflate overran its own bound", tier: .files)
            }
            count = header.count + produced
            raw.storeBytes(of: crc.littleEndian, toByteOffset: count, as: UInt32.self)
            raw.storeBytes(
                of: UInt32(truncatingIfNeeded: block.count).littleEndian, toByteOffset: count + 4, as: UInt32.self)
            count += 8
        }
    }
}

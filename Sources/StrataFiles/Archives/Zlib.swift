internal import CZlib
import Foundation
import StrataCore

/// The only file that calls zlib: dictionary-primed deflate blocks that continue one stream, streaming inflate,
/// and combining CRC-32s. (Whole-buffer deflate and CRC-32 itself are libdeflate's: see ``LibDeflate``.)
package enum Zlib {
    /// The CRC-32 of two concatenated pieces from their CRCs and the second's length.
    package static func crc32Combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: CZlib.crc32_combine(UInt(first), UInt(second), off_t(secondLength)))
    }

    /// Compresses one block as raw deflate, primed with `dictionary` (the 32 KiB before it), ending on a byte
    /// boundary (`Z_SYNC_FLUSH`) unless it is the last block (`Z_FINISH`). Independent blocks concatenated in
    /// order form one valid deflate stream: what lets blocks be compressed in parallel.
    static func deflateBlock(
        _ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer?, level: Int32, isLast: Bool
    ) throws -> [UInt8] {
        var stream = z_stream()
        guard strata_deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            throw StorageError(.io, "zlib could not start a compressor", tier: .files)
        }
        defer { deflateEnd(&stream) }
        if let dictionary, let base = dictionary.baseAddress, dictionary.count > 0 {
            deflateSetDictionary(&stream, base.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
        }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let produced = output.withUnsafeMutableBytes { out -> Int in
            // zlib accepts no input pointer when there is no input (avail_in 0).
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            _ = deflate(&stream, isLast ? Z_FINISH : Z_SYNC_FLUSH)
            return out.count - Int(stream.avail_out)
        }
        output.removeSubrange(produced...)
        return output
    }

    /// A streaming inflater for raw deflate (zip) or gzip (`windowBits` 15 + 16) data.
    final class Inflater {
        private var stream = z_stream()
        private var finished = false

        init(gzip: Bool) throws {
            guard strata_inflateInit2(&stream, gzip ? 15 + 16 : -15) == Z_OK else {
                throw StorageError(.io, "zlib could not start a decompressor", tier: .files)
            }
        }

        deinit { inflateEnd(&stream) }

        var isFinished: Bool { finished }

        /// Starts over on a new stream (the next member of a gzip file), keeping the allocated state.
        func reset() {
            inflateReset(&stream)
            finished = false
        }
        /// Input bytes not consumed by the end of the stream (after a gzip member or deflate end).
        var remainingInput: Int { Int(stream.avail_in) }

        /// Feeds input and calls `sink` with each piece of output.
        /// - Returns: How many input bytes were consumed.
        @discardableResult
        func feed(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
            guard !finished else { return 0 }
            var output = [UInt8](repeating: 0, count: 256 << 10)
            // zlib accepts no input pointer when there is no input (avail_in 0).
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            repeat {
                let (status, produced) = output.withUnsafeMutableBytes { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                if produced > 0 {
                    try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
                }
                switch status {
                case Z_STREAM_END:
                    finished = true
                    return input.count - Int(stream.avail_in)
                case Z_OK, Z_BUF_ERROR:
                    if status == Z_BUF_ERROR && produced == 0 { return input.count - Int(stream.avail_in) }
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw StorageError(.corrupt, "the compressed data is damaged: \(message)", tier: .files)
                }
            } while stream.avail_in > 0 || stream.avail_out == 0
            return input.count
        }
    }
}

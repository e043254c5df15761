internal import CDeflate
import StrataCore

/// The only file that calls libdeflate: whole-buffer raw deflate (each export block is one complete stream) and
/// CRC-32, both several times zlib's speed. zlib stays for what libdeflate lacks: streaming inflate, a
/// dictionary-primed block that continues a stream (a large zip entry), and `crc32_combine`.
package enum LibDeflate {
    /// CRC-32 of `bytes`, continuing from `crc` (the same value as zlib's `crc32`).
    package static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return libdeflate_crc32(crc, base, bytes.count)
    }

    /// A compressor at one level. Not thread-safe: each thread uses its own.
    package final class Compressor {
        private let handle: OpaquePointer

        /// - Parameter level: 0 (stored) to 12; 1–9 match zlib's levels in speed and ratio or better.
        /// - Throws: ``StorageError`` `.io` when it cannot be allocated.
        package init(level: Int32) throws {
            guard let handle = libdeflate_alloc_compressor(min(max(level, 0), 12)) else {
                throw StorageError(.io, "libdeflate could not start a compressor (level \(level))", tier: .files)
            }
            self.handle = handle
        }

        deinit { libdeflate_free_compressor(handle) }

        /// The largest output `count` input bytes can compress to.
        package func bound(_ count: Int) -> Int { libdeflate_deflate_compress_bound(handle, count) }

        /// Compresses `input` as one complete raw deflate stream into `output`.
        /// - Returns: The compressed size, or `nil` when it does not fit in `output` (pass less room than the input
        ///   to learn cheaply that data does not compress).
        package func compress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
            guard let destination = output.baseAddress, output.count > 0 else { return nil }
            // libdeflate accepts no input pointer when there is no input.
            let produced = libdeflate_deflate_compress(
                handle, input.baseAddress, input.count, destination, output.count)
            return produced == 0 ? nil : produced
        }
    }

    /// A decompressor of raw deflate streams whose decompressed size is known. Not thread-safe: each thread uses
    /// its own.
    package final class Decompressor {
        private let handle: OpaquePointer

        /// - Throws: ``StorageError`` `.io` when it cannot be allocated.
        package init() throws {
            guard let handle = libdeflate_alloc_decompressor() else {
                throw StorageError(.io, "libdeflate could not start a decompressor", tier: .files)
            }
            self.handle = handle
        }

        deinit { libdeflate_free_decompressor(handle) }

        /// Decompresses the complete raw deflate stream `input` into exactly `output.count` bytes.
        /// - Returns: `false` when the stream is damaged or does not decompress to exactly that size.
        package func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
            guard let source = input.baseAddress, input.count > 0 else { return output.count == 0 }
            var produced = 0
            let result = libdeflate_deflate_decompress(
                handle, source, input.count, output.baseAddress, output.count, &produced)
            return result == LIBDEFLATE_SUCCESS && produced == output.count
        }
    }
}

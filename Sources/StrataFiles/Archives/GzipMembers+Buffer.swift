import StrataCore

extension GzipMembers {
    /// The memory of one member in flight, allocated once and reused for member after member: the input block, the
    /// member it compresses to (header, deflate body, trailer), and a libdeflate compressor per level used.
    ///
    /// An export holds at most one more of these than it has jobs in flight (``compress(read:sink:progress:)``
    /// returns each to its pool once the member is written), so its memory is flat whatever the input size; a fresh
    /// block and output per member instead left the allocator's arenas on the worker threads fragmented and growing.
    ///
    /// `@unchecked Sendable`: one thread uses it at a time, handed over by ``OrderedWork``'s semaphore. The
    /// submitting thread fills ``input``, a worker runs ``compress(level:header:)`` between submit and
    /// `done.signal()`, and the submitting thread reads ``member`` after `done.wait()` and then reuses it.
    final class Buffer: @unchecked Sendable {
        /// Room for one input block.
        let input: UnsafeMutableRawBufferPointer
        /// How many bytes of ``input`` hold data.
        var inputCount = 0
        private var output: UnsafeMutableRawBufferPointer
        private var outputCount = 0
        private var compressors: [Int32: LibDeflate.Compressor] = [:]

        /// - Parameter blockSize: The input block's size in bytes.
        init(blockSize: Int) {
            input = .allocate(byteCount: blockSize, alignment: 16)
            output = .allocate(byteCount: 0, alignment: 16)
        }

        deinit {
            input.deallocate()
            output.deallocate()
        }

        /// The member made by the last ``compress(level:header:)``.
        var member: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: output[..<outputCount]) }

        /// Makes the gzip member of the ``input`` block: `header`, the block as one raw deflate stream at libdeflate
        /// `level`, its CRC-32 and size.
        /// - Throws: ``/StrataCore/StorageError`` `.io` when libdeflate cannot start or overruns its own bound.
        func compress(level: Int32, header: [UInt8]) throws {
            let compressor = try compressor(level: level)
            let block = UnsafeRawBufferPointer(rebasing: input[..<inputCount])
            let room = compressor.bound(block.count)
            let needed = header.count + room + 8
            if output.count < needed {
                output.deallocate()
                output = .allocate(byteCount: needed, alignment: 16)
            }
            output.copyBytes(from: header)
            let body = UnsafeMutableRawBufferPointer(rebasing: output[header.count..<(header.count + room)])
            guard let produced = compressor.compress(block, into: body) else {
                outputCount = 0
                throw StorageError(.io, "libdeflate overran its own bound", tier: .files)
            }
            outputCount = header.count + produced
            output.storeBytes(of: LibDeflate.crc32(block).littleEndian, toByteOffset: outputCount, as: UInt32.self)
            output.storeBytes(
                of: UInt32(truncatingIfNeeded: block.count).littleEndian, toByteOffset: outputCount + 4,
                as: UInt32.self)
            outputCount += 8
        }

        private func compressor(level: Int32) throws -> LibDeflate.Compressor {
            if let compressor = compressors[level] { return compressor }
            let compressor = try LibDeflate.Compressor(level: level)
            compressors[level] = compressor
            return compressor
        }
    }
}

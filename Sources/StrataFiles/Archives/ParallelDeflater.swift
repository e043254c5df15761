import Dispatch
import Foundation
import StrataCore
import Synchronization

/// Deflates a stream on every core: the input is cut into 128 KiB blocks, each compressed on its own with the
/// 32 KiB before it as dictionary (so the ratio stays close to one-thread deflate), and the outputs are
/// concatenated in order into one valid raw deflate stream. Memory is bounded by one window of blocks.
struct ParallelDeflater {
    static let blockSize = 128 << 10
    static let dictionarySize = 32 << 10

    var level: Int32
    var threads: Int

    init(level: Int32, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.level = level
        self.threads = max(1, threads)
    }

    /// Compresses everything `read` returns (it fills a buffer and returns how many bytes, 0 at the end),
    /// handing compressed bytes to `sink` in order.
    /// - Returns: The CRC-32 and length of the input.
    func deflate(
        read: (inout [UInt8]) throws -> Int, sink: ([UInt8]) throws -> Void, progress: (Int) throws -> Void
    ) throws -> (crc: UInt32, size: Int) {
        let window = threads * 4
        var crc: UInt32 = 0
        var total = 0
        var dictionary = [UInt8]()
        var pendingLast: [UInt8]? = nil  // A block held back until we know whether it is the last.
        var finished = false
        while !finished {
            var blocks: [[UInt8]] = []
            if let held = pendingLast { blocks.append(held) }
            pendingLast = nil
            while blocks.count < window + 1 {
                var buffer = [UInt8](repeating: 0, count: Self.blockSize)
                var filled = 0
                while filled < Self.blockSize {
                    var chunk = [UInt8](repeating: 0, count: Self.blockSize - filled)
                    let count = try read(&chunk)
                    if count == 0 { break }
                    buffer.replaceSubrange(filled..<(filled + count), with: chunk[0..<count])
                    filled += count
                }
                if filled == 0 {
                    finished = true
                    break
                }
                buffer.removeSubrange(filled...)
                blocks.append(buffer)
                if filled < Self.blockSize {
                    finished = true
                    break
                }
            }
            // Keep one block back unless the input ended: the last block must be compressed with Z_FINISH.
            if !finished, blocks.count > window { pendingLast = blocks.removeLast() }
            if blocks.isEmpty {
                if finished {
                    try sink(
                        try Zlib.deflateBlock(
                            UnsafeRawBufferPointer(start: nil, count: 0), dictionary: nil, level: level, isLast: true))
                }
                break
            }
            var dictionaries: [[UInt8]] = [dictionary]
            for block in blocks.dropLast() { dictionaries.append(Array(block.suffix(Self.dictionarySize))) }
            let outputs = Mutex<[[UInt8]?]>(Array(repeating: nil, count: blocks.count))
            let failure = Mutex<(any Error)?>(nil)
            let lastIndex = blocks.count - 1
            let isFinalWindow = finished && pendingLast == nil
            let inputs = blocks
            let primes = dictionaries
            DispatchQueue.concurrentPerform(iterations: blocks.count) { index in
                do {
                    let compressed = try inputs[index].withUnsafeBytes { input in
                        try primes[index].withUnsafeBytes { dictionary in
                            try Zlib.deflateBlock(
                                input, dictionary: dictionary.count > 0 ? dictionary : nil, level: level,
                                isLast: isFinalWindow && index == lastIndex)
                        }
                    }
                    outputs.withLock { $0[index] = compressed }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            let compressed = outputs.withLock { $0 }
            for (index, block) in blocks.enumerated() {
                crc = block.withUnsafeBytes { LibDeflate.crc32($0, continuing: crc) }
                total += block.count
                try sink(compressed[index]!)
            }
            dictionary = Array(blocks[lastIndex].suffix(Self.dictionarySize))
            try progress(total)
            if isFinalWindow { break }
        }
        return (crc, total)
    }
}

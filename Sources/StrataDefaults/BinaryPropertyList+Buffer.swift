import Foundation

extension BinaryPropertyList {
    /// The bytes of a document being written: one allocation that grows by doubling, stores without per-byte
    /// checks beyond the capacity, and becomes the `Data` it returns without a copy.
    ///
    /// A suite is rewritten whole on every durable set, so this is the hot path of a write: an `[UInt8]` paid a
    /// uniqueness and capacity check on every appended byte of every reference and offset.
    struct Buffer: ~Copyable {
        private var base: UnsafeMutableRawPointer
        private var capacity: Int
        /// How many bytes are written.
        private(set) var count = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
        }

        deinit { base.deallocate() }

        /// Makes room for `more` bytes after ``count``.
        @inline(__always)
        mutating func reserve(_ more: Int) {
            if count + more > capacity { grow(to: count + more) }
        }

        private mutating func grow(to needed: Int) {
            let newCapacity = max(capacity * 2, needed)
            let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
            newBase.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            reserve(1)
            base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
            count += 1
        }

        /// Appends the low `width` bytes (1, 2, 4 or 8) of `value`, most significant first.
        @inline(__always)
        mutating func appendBigEndian(_ value: UInt64, width: Int) {
            reserve(8)
            let at = base + count
            switch width {
            case 1: at.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
            case 2: at.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
            case 4: at.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
            default: at.storeBytes(of: value.bigEndian, as: UInt64.self)
            }
            count += width
        }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            reserve(bytes.count)
            (base + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }

        mutating func append(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { append(byte) }
        }

        /// A copy of the bytes written.
        var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: count)) }

        /// The bytes written, handed over to a `Data` that frees them.
        consuming func data() -> Data {
            let (base, count) = (self.base, self.count)
            discard self
            return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        }
    }
}

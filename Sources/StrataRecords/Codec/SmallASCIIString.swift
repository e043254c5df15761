/// Makes a `String` of at most 15 ASCII bytes (ids, tags, short names: most strings in a record) straight from its
/// bytes, in the form the standard library gives such a string on 64-bit little-endian machines: the bytes held in
/// the string's two words, the count and the "small, ASCII" flags in the top byte. `String(decoding:as:)` makes the
/// same value, but through a generic validating path several times as long, which a point get took four times.
///
/// The form is checked once against strings the standard library makes (bit for bit, every length): where it
/// differs (another layout, a big-endian or 32-bit machine), ``string(_:count:)`` returns `nil` and the caller
/// takes the standard path. The bytes must be ASCII; the caller knows it (``JSONTape`` notes it while scanning).
enum SmallASCIIString {
    /// The longest string kept in the two words.
    static var capacity: Int { 15 }

    /// Whether the form built here is the standard library's, checked for every length.
    static let isSupported: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
            guard MemoryLayout<String>.size == 16 else { return false }
            let sample = Array("0123456789abcdefghij".utf8)
            return sample.withUnsafeBytes { sample in
                (0...capacity).allSatisfy { count in
                    // Compare the bits first: a string is made from words only once they are known to be the
                    // standard library's own (a foreign form could be a pointer).
                    let expected = String(decoding: sample.prefix(count), as: UTF8.self)
                    let form = words(sample.baseAddress!, count: count)
                    guard unsafeBitCast(expected, to: (UInt64, UInt64).self) == form else { return false }
                    return unsafeBitCast(form, to: String.self) == expected
                }
            }
        #else
            return false
        #endif
    }()

    /// The string of the `count` ASCII bytes at `start`, or `nil` when there are more than ``capacity`` or the form
    /// is not supported here.
    @inline(__always)
    static func string(_ start: UnsafeRawPointer, count: Int) -> String? {
        guard count <= capacity, isSupported else { return nil }
        return supportedString(start, count: count)
    }

    /// ``string(_:count:)`` for a caller that checked ``isSupported`` (once for many strings) and that `count` is
    /// at most ``capacity``.
    @inline(__always)
    static func supportedString(_ start: UnsafeRawPointer, count: Int) -> String {
        unsafeBitCast(words(start, count: count), to: String.self)
    }

    /// The two words of the small string: the first eight bytes, then the next seven with the flags and count on top.
    @inline(__always)
    private static func words(_ start: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
        let low: UInt64
        var high: UInt64 = 0
        if count >= 8 {
            low = UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))
            if count > 8 {
                // The last eight bytes, shifted so that only those past the first eight are left.
                let last = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                high = last >> (8 * UInt64(16 - count))
            }
        } else {
            low = ByteSpans.partialWord(start, count: count)
        }
        return (low, high | (UInt64(0xE0 | count) << 56))
    }
}

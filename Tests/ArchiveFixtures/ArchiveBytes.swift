import StrataFiles

/// The byte-level steps the archive skeletons share, written here rather than borrowed from the readers under test:
/// a fixture that used the reader's own format constants would agree with a reader that got them wrong.
enum ArchiveBytes {
    static let zipLocalSignature: UInt32 = 0x0403_4B50
    static let zipCentralSignature: UInt32 = 0x0201_4B50
    static let zipEndSignature: UInt32 = 0x0605_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let zipDataDescriptorSignature: UInt32 = 0x0807_4B50
    /// General purpose bit 11: names are UTF-8.
    static let zipUTF8Flag: UInt16 = 1 << 11

    /// `value`'s low `width` bytes, least significant first.
    static func littleEndian<I: FixedWidthInteger>(_ value: I, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// `bytes` as one complete raw deflate stream (level 6), or `nil` when the compressor cannot be made.
    static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        guard let compressor = try? LibDeflate.Compressor(level: 6) else { return nil }
        var out = [UInt8](repeating: 0, count: compressor.bound(bytes.count) + 16)
        let produced = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { compressor.compress(input, into: $0) }
        }
        return produced.map { Array(out.prefix($0)) }
    }

    /// The CRC-32 of `bytes`, as zip and gzip record it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { LibDeflate.crc32($0) }
    }
}

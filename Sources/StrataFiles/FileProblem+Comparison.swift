extension FileProblem {
    /// The problem of a file whose content was read back as `crc` and `size`, against what was recorded when it was
    /// written; `nil` when the two agree. For an engine implementing ``FileEngine/verify(prefix:)``.
    public init?(key: String, recordedCRC: UInt32, recordedSize: Int, crc: UInt32, size: Int) {
        if size != recordedSize {
            self.init(key: key, kind: .sizeMismatch, detail: "recorded \(recordedSize) bytes, found \(size)")
        } else if crc != recordedCRC {
            self.init(
                key: key, kind: .checksumMismatch,
                detail: "recorded CRC-32 \(Self.hex(recordedCRC)), computed \(Self.hex(crc))")
        } else {
            return nil
        }
    }

    private static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

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

    /// The problem of a file whose content was `crc` and `size` when it was written, against the checksum recorded
    /// in its extended attributes `attributes` (as a capture keeps them); `nil` when the two agree or when nothing
    /// readable is recorded there (a file the files tier did not write, which its verification leaves alone too).
    package init?(key: String, attributes: [String: [UInt8]], crc: UInt32, size: Int) {
        guard let record = attributes[PosixFileEngine.integrityAttribute],
            let recorded = PosixFileEngine.parseIntegrity(record)
        else { return nil }
        self.init(key: key, recordedCRC: recorded.crc, recordedSize: recorded.size, crc: crc, size: size)
    }

    /// Whether `attributes` record a checksum that ``init(key:attributes:crc:size:)`` compares content with.
    package static func recordsChecksum(in attributes: [String: [UInt8]]) -> Bool {
        attributes[PosixFileEngine.integrityAttribute].flatMap(PosixFileEngine.parseIntegrity) != nil
    }

    private static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

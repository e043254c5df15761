import StrataFiles

// What a capture of a local store records of a file's checksum (the engine's integrity attribute), compared with
// the content restored from it.

extension FileProblem {
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
}

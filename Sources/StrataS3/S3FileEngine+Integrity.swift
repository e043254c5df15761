import Foundation
import StrataCore
import StrataFiles

extension S3FileEngine {
    /// The user metadata names (without `x-amz-meta-`) of a file's CRC-32 (8 hex digits) and size.
    static let crcMetadata = "strata-crc32"
    static let sizeMetadata = "strata-size"
    /// A random id each conditional write carries, so that a writer whose answer was lost can tell whether the
    /// object is its own write.
    static let writeMetadata = "strata-write"

    /// The metadata that records a content's CRC-32 and size.
    static func integrityMetadata(crc: UInt32, size: Int) -> [String: String] {
        [crcMetadata: hex(crc), sizeMetadata: String(size)]
    }

    /// A CRC-32 as 8 lowercase hex digits, the way the metadata records it (without `String(format:)`, whose
    /// cost showed in every small write).
    static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The CRC-32 and size an object's metadata records, or nil when it records none.
    static func recordedIntegrity(_ metadata: [String: String]) -> (crc: UInt32, size: Int)? {
        guard let text = metadata[crcMetadata], text.utf8.count == 8, let crc = UInt32(text, radix: 16),
            let size = metadata[sizeMetadata].flatMap({ Int($0) })
        else { return nil }
        return (crc, size)
    }

    /// The CRC-32 of `data`, computed the way every write computes it (through a ``FileWriter``).
    static func crc32(_ data: Data) throws -> UInt32 {
        var writer = FileWriter(sink: { _ in })
        try writer.write(data)
        return writer.crc
    }
}

public import Foundation

/// One entry of a zip archive, as its central directory describes it: listed by ``ZipArchive`` without reading
/// its data.
public struct ZipEntry: Sendable, Hashable {
    /// How an entry's data is kept in the archive.
    public enum Method: Sendable, Hashable {
        /// As is (method 0): what suits data that is compressed already (JPEG, most audio).
        case stored
        /// Compressed with deflate (method 8).
        case deflated
    }

    /// The entry's path in the archive (`docs/report.pdf`; a folder's ends with `/`).
    public let name: String
    /// Stored or deflated.
    public let method: Method
    /// The size of its data in the archive, in bytes.
    public let compressedSize: Int
    /// The size of its content, in bytes.
    public let size: Int
    /// The CRC-32 of its content, which a read checks at the end.
    public let crc32: UInt32
    /// When it was last modified: the extended timestamp when the archive has one (to the second), else the MS-DOS
    /// date and time (local time, to two seconds).
    public let modificationDate: Date
    /// Whether it is a folder (a name ending in `/`, no content).
    public let isDirectory: Bool

    init(_ entry: ZipReader.Entry) {
        name = entry.name
        method = entry.method == 8 ? .deflated : .stored
        compressedSize = entry.compressedSize
        size = entry.size
        crc32 = entry.crc
        modificationDate = Date(timeIntervalSince1970: TimeInterval(entry.modified))
        isDirectory = entry.isDirectory
    }
}

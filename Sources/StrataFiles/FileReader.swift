public import Foundation

/// Reads one file from its first byte to its last, in order, for a consumer that pulls (the exports' compressors).
///
/// A ``FileEngine`` makes one in ``FileEngine/withReader(_:_:)``: every byte comes from one version of the file, or
/// the reader throws (`.conflict`) rather than hand out a mix.
public struct FileReader {
    /// The file's size in bytes when it was opened.
    public let size: Int
    /// When the file's content last changed.
    public let modificationDate: Date
    private let pull: (UnsafeMutableRawBufferPointer) throws -> Int

    /// Creates a reader whose `read` fills a buffer with the next bytes and returns how many (0 at the end), for an
    /// engine implementing ``FileEngine/withReader(_:_:)``.
    public init(size: Int, modificationDate: Date, read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.size = size
        self.modificationDate = modificationDate
        pull = read
    }

    /// Reads the next bytes into `buffer`.
    /// - Returns: How many bytes were read: at least one, unless the file has ended (then 0).
    /// - Throws: ``/StrataCore/StorageError``: an I/O error, or `.conflict` when the file changed while it was read.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try pull(buffer)
    }

    /// Reads the next bytes into the start of `buffer`.
    /// - Returns: How many bytes were read (0 at the end).
    public func read(into buffer: inout [UInt8]) throws -> Int {
        try buffer.withUnsafeMutableBytes { try pull($0) }
    }
}

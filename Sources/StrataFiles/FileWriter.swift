public import Foundation
import StrataCore
public import StrataSystem

/// Streams the content of a file being written into the engine's receiving end (a temporary file, an upload),
/// computing its CRC-32 and size on the way.
///
/// A ``FileEngine`` creates one for each write and hands it to the caller's body; nothing becomes visible unless
/// the body returns. The engine records ``crc`` and ``count`` with the file so that ``FileStore/verify(prefix:)``
/// can check them.
public struct FileWriter: ~Copyable {
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    /// The CRC-32 of what was written so far.
    public private(set) var crc: UInt32 = 0
    /// How many bytes were written so far.
    public private(set) var count = 0

    /// Creates a writer that passes every buffer to `sink`, for an engine implementing
    /// ``FileEngine/write(_:_:)``. `sink` must have taken the bytes (copied or written them) when it returns.
    public init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
    }

    /// Appends `data`.
    public mutating func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Appends the bytes of `buffer`.
    public mutating func write(_ buffer: UnsafeRawBufferPointer) throws {
        try sink(buffer)
        crc = LibDeflate.crc32(buffer, continuing: crc)
        count += buffer.count
    }

    /// Appends what `fd` reads from its current offset to its end, through one buffer of `chunkSize` bytes
    /// reused for every read (no allocation or copy per chunk).
    /// - Throws: ``/StrataCore/StorageError``: an I/O error reading `fd` or writing the new file.
    public mutating func write(contentsOf fd: FileDescriptor, chunkSize: Int) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 4096), alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do throws(Errno) {
                count = try Sys.read(fd, buffer)
            } catch {
                throw error.storageError("cannot read the file being copied in", tier: .files)
            }
            if count == 0 { return }
            try write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}

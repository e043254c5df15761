public import StrataSystem

/// A captured store being read back: the files of one snapshot, and their content on request.
public protocol CaptureSource: AnyObject {
    /// Every file of the capture, in the order they were added.
    var files: [CapturedFile] { get }
    /// Writes the content of `file` (one of ``files``) to `descriptor` at its current offset, in order.
    /// - Throws: ``StorageError`` naming the file when its content is missing, damaged or fails its
    ///   authentication (`.corruptData`, `.authenticationFailed`), or when `descriptor` cannot be written.
    func write(_ file: CapturedFile, to descriptor: FileDescriptor) throws
    /// Writes the content of each of `files` (some of ``files``), one file after the other: each to the
    /// descriptor `open` returns for it, at its current offset, and `finish` is called with that descriptor after
    /// the file's last byte, with the CRC-32 of the bytes written when the source computed it as it wrote them. A
    /// source may read and check content ahead of the file being written (several files at once, on other threads),
    /// but never calls `open` for a file before the previous one is finished.
    ///
    /// The caller owns every descriptor `open` returns and closes it, also when this throws part-way through a
    /// file. The default writes each file with ``write(_:to:)`` and computes no CRC-32.
    /// - Parameters:
    ///   - files: The files, in the order to write them.
    ///   - open: Creates the file and returns a descriptor to write it through.
    ///   - finish: Called once the file's content is written, with its descriptor and the CRC-32 (the polynomial of
    ///     zlib and gzip) of the bytes written, or `nil` when the source did not compute it.
    /// - Throws: What ``write(_:to:)`` throws, or what `open` or `finish` throw; nothing more is written then.
    func write(
        _ files: [CapturedFile], opening open: (CapturedFile) throws -> FileDescriptor,
        finishing finish: (_ file: CapturedFile, _ descriptor: FileDescriptor, _ crc32: UInt32?) throws -> Void
    ) throws
}

extension CaptureSource {
    /// Writes each file with ``write(_:to:)``, one after the other.
    public func write(
        _ files: [CapturedFile], opening open: (CapturedFile) throws -> FileDescriptor,
        finishing finish: (_ file: CapturedFile, _ descriptor: FileDescriptor, _ crc32: UInt32?) throws -> Void
    ) throws {
        for file in files {
            let descriptor = try open(file)
            try write(file, to: descriptor)
            try finish(file, descriptor, nil)
        }
    }
}

public import StrataSystem

/// Where a tier writes a consistent capture of itself: a backup repository's snapshot being written, or a folder.
///
/// A tier calls ``add(_:contentsOf:)`` while it holds whatever lock makes the file consistent, so an implementation
/// must read the whole content before it returns and must not keep the descriptor.
public protocol CaptureSink: AnyObject {
    /// Stores one file, reading `descriptor` from offset 0 for exactly `file.size` bytes (with `pread`, so the
    /// descriptor's offset is left alone).
    /// - Throws: ``StorageError`` when the file ends before `file.size` bytes (`.corruptData` naming the path) or
    ///   the destination cannot be written.
    func add(_ file: CapturedFile, contentsOf descriptor: FileDescriptor) throws
    /// Stores one file whose content is already in memory (`file.size` must equal `contents.count`).
    func add(_ file: CapturedFile, contents: [UInt8]) throws
}

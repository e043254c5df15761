public import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension CaptureSink {
    /// Hands an open file to the sink, described by its status now: its permission bits, size and modification
    /// time. The caller holds whatever lock keeps the file still, and closes `descriptor`.
    /// - Parameters:
    ///   - descriptor: The file, open for reading.
    ///   - path: Its path relative to the store root (``CapturedFile/path``).
    ///   - tier: Its tier, or `nil` for the store's own files.
    ///   - extendedAttributes: The attributes to keep with it.
    /// - Returns: The description handed to the sink.
    /// - Throws: ``StorageError`` when the file cannot be inspected, or from the sink.
    @discardableResult
    public func add(
        descriptor: FileDescriptor, path: String, tier: Tier?, extendedAttributes: [String: [UInt8]] = [:]
    ) throws -> CapturedFile {
        let info: stat
        do {
            info = try Sys.fstat(descriptor)
        } catch {
            throw error.storageError("cannot inspect a file to capture", tier: tier, path: path)
        }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        let file = CapturedFile(
            path: path, tier: tier, mode: UInt32(info.st_mode) & 0o7777, size: Int64(info.st_size),
            modificationTime: .init(seconds: Int64(modified.tv_sec), nanoseconds: Int32(modified.tv_nsec)),
            extendedAttributes: extendedAttributes)
        try add(file, contentsOf: descriptor)
        return file
    }

    /// Opens `name` in `folder` (never through a link) and hands it to the sink as ``add(descriptor:path:tier:extendedAttributes:)``
    /// does.
    /// - Returns: The description handed to the sink, or `nil` when there is no such file.
    /// - Throws: ``StorageError`` when the file cannot be opened or read, or from the sink.
    @discardableResult
    package func add(
        _ name: String, in folder: DirectoryHandle, path: String, tier: Tier?,
        extendedAttributes: (FileDescriptor) -> [String: [UInt8]] = { _ in [:] }
    ) throws -> CapturedFile? {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try folder.openRegularFile(name).fd
        } catch let error where error.code == ENOENT {
            return nil
        } catch {
            throw error.storageError("cannot open a file to capture", tier: tier, path: folder.path(of: name))
        }
        return try fd.closeAfter {
            try add(descriptor: fd, path: path, tier: tier, extendedAttributes: extendedAttributes(fd))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder known by its device and inode, so that two spellings of one path (through a link, with `./`) meet.
package struct FolderIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    /// The identity of the open folder `handle`.
    package init(_ handle: DirectoryHandle) throws(Errno) {
        let info = try handle.status()
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

internal import CStrataSystem

extension Sys {
    /// `syncfs(2)`: flushes every file of the file system that holds `fd` — what one `fsync` per file would, in
    /// one call. Linux only (through the header-only CStrataSystem module: Glibc's Swift module leaves it out):
    /// elsewhere it throws `ENOSYS` and the caller `fsync`s each file.
    package static func syncFileSystem(_ fd: FileDescriptor, path: String? = nil) throws(Errno) {
        _ = try retrying(.fsync, path) { strata_syncfs(fd.rawValue) }
    }
}

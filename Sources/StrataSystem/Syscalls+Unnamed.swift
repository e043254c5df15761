#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Files created without a name and named afterwards, through CStrataSystem (Glibc's Swift module leaves
// O_TMPFILE out; the calls are in `Syscalls+UnnamedCalls.swift`, so that `mode_t` here is the platform's, not the
// C target's, which this file must not import).
extension Sys {
    /// A new, empty regular file without a name in the folder `directory`, open for writing (`O_TMPFILE`). The
    /// folder's lock is not held while the file system allocates it, so threads create files in one folder at
    /// once. `path` is for the fault injector's filters and messages only.
    /// - Throws: ``Errno``: `EOPNOTSUPP` where there is no such call (Darwin) or the file system has none
    ///   (`EISDIR`, `EINVAL` on some kernels); the caller creates a named file instead.
    package static func openUnnamed(_ directory: FileDescriptor, permissions: FilePermissions, path: String)
        throws(Errno) -> FileDescriptor
    {
        FileDescriptor(
            rawValue: try retrying(.open, path) { system_open_unnamed(directory.rawValue, permissions.mode) })
    }

    /// Names the unnamed file open as `fd`: `name` in the folder `directory` (through `/proc/self/fd`).
    /// - Throws: ``Errno``: `EEXIST` when `name` is taken, `ENOENT` without `/proc`, `EOPNOTSUPP` elsewhere.
    package static func linkDescriptor(
        _ fd: FileDescriptor, _ directory: FileDescriptor, _ name: String, path: String
    ) throws(Errno) {
        _ = try retrying(.link, path) {
            name.withCString { system_link_descriptor(fd.rawValue, directory.rawValue, $0) }
        }
    }
}

package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The calls relative to a directory descriptor (`openat`, `renameat`, ...), plus the few path and offset calls
// the rest of the seam lacked. `path` is only for the fault injector's filters and for messages: the kernel
// never sees it.
extension Sys {
    /// `openat(2)`: opens `name` inside the folder `directory`; `path` (for fault filters) is built only when the
    /// fault injector is armed.
    package static func openat(
        _ directory: FileDescriptor, _ name: String, _ access: FileDescriptor.AccessMode,
        _ options: FileDescriptor.OpenOptions = [], permissions: FilePermissions = .ownerReadWrite,
        path: @autoclosure () -> String
    ) throws(Errno) -> FileDescriptor {
        let flags = access.rawValue | options.rawValue | O_CLOEXEC
        return FileDescriptor(
            rawValue: try retrying(.open, path()) {
                name.withCString { system_openat(directory.rawValue, $0, flags, permissions.mode) }
            })
    }

    /// `mkdirat(2)`.
    package static func mkdirat(
        _ directory: FileDescriptor, _ name: String, _ permissions: FilePermissions, path: String
    ) throws(Errno) {
        _ = try retrying(.mkdir, path) { name.withCString { system_mkdirat(directory.rawValue, $0, permissions.mode) } }
    }

    /// `renameat(2)`: moves `name` in `directory` to `newName` in `newDirectory`, replacing what is there.
    package static func renameat(
        _ directory: FileDescriptor, _ name: String, _ newDirectory: FileDescriptor, _ newName: String, path: String
    ) throws(Errno) {
        _ = try retrying(.rename, path) {
            name.withCString { from in
                newName.withCString { to in system_renameat(directory.rawValue, from, newDirectory.rawValue, to) }
            }
        }
    }

    /// `unlinkat(2)`; `flags` is `0` for a file or `AT_REMOVEDIR` for an empty folder.
    package static func unlinkat(
        _ directory: FileDescriptor, _ name: String, _ flags: Int32 = 0, path: String
    ) throws(Errno) {
        _ = try retrying(.unlink, path) { name.withCString { system_unlinkat(directory.rawValue, $0, flags) } }
    }

    /// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: information about `name` itself, never a link's target; `path`
    /// (for fault filters) is built only when the fault injector is armed.
    package static func fstatat(_ directory: FileDescriptor, _ name: String, path: @autoclosure () -> String)
        throws(Errno)
        -> stat
    {
        var info = stat()
        _ = try retrying(.stat, path()) {
            name.withCString { system_fstatat(directory.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) }
        }
        return info
    }

    /// `stat(2)`: follows links (only for a store root, whose path is the caller's choice).
    package static func statFollowingLinks(_ path: String) throws(Errno) -> stat {
        var info = stat()
        _ = try retrying(.stat, path) { path.withCString { system_stat($0, &info) } }
        return info
    }

    /// `pwrite(2)`: one positioned write; may write fewer bytes than asked.
    package static func pwrite(
        _ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, at offset: Int64, path: String? = nil
    ) throws(Errno) -> Int {
        try retrying(.write, path) { system_pwrite(fd.rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Writes every byte of `bytes` at `offset`, continuing after short writes.
    package static func pwriteAll(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int64, path: String? = nil)
        throws(Errno)
    {
        var done = 0
        var result: Result<Void, Errno> = .success(())
        bytes.withUnsafeBytes { buffer in
            while done < buffer.count {
                do throws(Errno) {
                    let written = try pwrite(
                        fd, UnsafeRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done), path: path)
                    if written == 0 {
                        result = .failure(Errno(EIO))
                        return
                    }
                    done += written
                } catch {
                    result = .failure(error)
                    return
                }
            }
        }
        try result.get()
    }

    /// `utimensat(2)` on `name` in `directory`, never following a link: sets the access time to now and keeps
    /// the modification time.
    package static func touchAccessTime(_ directory: FileDescriptor, _ name: String, path: String) throws(Errno) {
        #if canImport(Darwin)
            let (now, omit) = (-1, -2)
        #else
            let (now, omit) = ((1 << 30) - 1, (1 << 30) - 2)  // UTIME_NOW, UTIME_OMIT
        #endif
        var times = [timespec(tv_sec: 0, tv_nsec: now), timespec(tv_sec: 0, tv_nsec: omit)]
        _ = try retrying(.chmod, path) {
            name.withCString { system_utimensat(directory.rawValue, $0, &times, AT_SYMLINK_NOFOLLOW) }
        }
    }

    /// The names in the folder open at `directory` (without `.` and `..`), read through a duplicate descriptor, and
    /// how many others it holds whose names are not UTF-8 (another program's; never a key). Those are not decoded:
    /// a lossy decoding (`a\xFF` as `a\u{FFFD}`) would name another file, or one the folder holds too.
    package static func directoryEntries(_ directory: FileDescriptor, path: String) throws(Errno) -> (
        names: [String], undecodable: Int
    ) {
        let duplicate = try retrying(.open, path) { system_fcntl_dupfd(directory.rawValue) }
        guard let stream = system_fdopendir(duplicate) else {
            let code = errno
            Sys.close(FileDescriptor(rawValue: duplicate))
            throw Errno(code)
        }
        defer { _ = system_closedir(stream) }
        system_rewinddir(stream)
        var names: [String] = []
        var undecodable = 0
        while true {
            errno = 0
            guard let entry = system_readdir(stream) else {
                if errno != 0 { throw Errno(errno) }
                return (names, undecodable)
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(validating: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let name else {
                undecodable += 1
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// `geteuid(2)`: who this process is, for the ownership checks of store folders.
    package static var effectiveUserID: uid_t { geteuid() }
}

private func system_openat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t)
    -> Int32
{
    openat(directory, name, flags, mode)
}
private func system_mkdirat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 {
    mkdirat(directory, name, mode)
}
private func system_renameat(
    _ directory: Int32, _ name: UnsafePointer<CChar>, _ newDirectory: Int32, _ newName: UnsafePointer<CChar>
) -> Int32 {
    renameat(directory, name, newDirectory, newName)
}
private func system_unlinkat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    unlinkat(directory, name, flags)
}
private func system_fstatat(
    _ directory: Int32, _ name: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<stat>, _ flags: Int32
) -> Int32 {
    fstatat(directory, name, info, flags)
}
private func system_stat(_ path: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<stat>) -> Int32 {
    stat(path, info)
}
private func system_pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int {
    pwrite(fd, buffer, count, offset)
}
private func system_utimensat(
    _ directory: Int32, _ name: UnsafePointer<CChar>, _ times: UnsafePointer<timespec>, _ flags: Int32
) -> Int32 {
    utimensat(directory, name, times, flags)
}
private func system_fcntl_dupfd(_ fd: Int32) -> Int32 { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
#if canImport(Darwin)
    private func system_fdopendir(_ fd: Int32) -> OpaquePointer? { fdopendir(fd).map(OpaquePointer.init) }
    private func system_closedir(_ stream: OpaquePointer) -> Int32 { closedir(UnsafeMutablePointer(stream)) }
    private func system_rewinddir(_ stream: OpaquePointer) { rewinddir(UnsafeMutablePointer(stream)) }
    private func system_readdir(_ stream: OpaquePointer) -> UnsafeMutablePointer<dirent>? {
        readdir(UnsafeMutablePointer(stream))
    }
#else
    private func system_fdopendir(_ fd: Int32) -> OpaquePointer? { fdopendir(fd) }
    private func system_closedir(_ stream: OpaquePointer) -> Int32 { closedir(stream) }
    private func system_rewinddir(_ stream: OpaquePointer) { rewinddir(stream) }
    private func system_readdir(_ stream: OpaquePointer) -> UnsafeMutablePointer<dirent>? { readdir(stream) }
#endif

package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An `errno` value thrown by the system-call seam.
package struct Errno: Error, Sendable, Hashable {
    /// The raw `errno` code.
    package var code: Int32
    package init(_ code: Int32) { self.code = code }

    /// The `errno` of the last failed C call.
    package static var current: Errno { Errno(errno) }
}

/// The thin seam between Strata and the C library. Every call retries on `EINTR`, reports failure as a typed
/// ``Errno``, and, in a build with `STRATA_FAULT_INJECTION` (debug builds), passes through ``FaultInjector`` so
/// tests can make any call fail on purpose. A release build has no such check.
package enum Sys {
    /// Runs `body` until it stops failing with `EINTR`, consulting the fault injector (when compiled in) before each
    /// try.
    ///
    /// `path` names the file for the injector's filters only, so it is built only when the injector is armed: a
    /// caller may pass `folder.path(of: name)` without paying for the string on every call.
    @inline(__always)
    static func retrying<T: BinaryInteger>(
        _ call: SystemCall, _ path: @autoclosure () -> String?, consultingFaults: Bool = true, _ body: () -> T
    ) throws(Errno) -> T {
        while true {
            #if STRATA_FAULT_INJECTION
                if consultingFaults, FaultInjector.isArmed,
                    let fault = FaultInjector.shared.fault(for: call, path: path())
                {
                    switch fault {
                    case .error(let code):
                        throw Errno(code)
                    case .interrupt:
                        continue  // As the kernel would: nothing happened, try again.
                    case .shortWrite:
                        break  // Handled by `write`.
                    case .kill:
                        break  // Not returned: the injector ended the process.
                    }
                }
            #endif
            let result = body()
            if result == -1 {
                let code = errno
                if code == EINTR { continue }
                throw Errno(code)
            }
            return result
        }
    }

    /// `open(2)` (with `O_CLOEXEC`): a new descriptor for `path`, which the caller closes.
    package static func open(
        _ path: String, _ access: FileDescriptor.AccessMode, _ options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions = .ownerReadWrite
    ) throws(Errno) -> FileDescriptor {
        let flags = access.rawValue | options.rawValue | O_CLOEXEC
        return FileDescriptor(
            rawValue: try retrying(.open, path) { path.withCString { system_open($0, flags, permissions.mode) } })
    }

    package static func close(_ fd: FileDescriptor) {
        // Never retry close on EINTR: the descriptor is gone either way on Linux.
        _ = system_close(fd.rawValue)
    }

    package static func read(_ fd: FileDescriptor, _ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retrying(.read, nil) { system_read(fd.rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads into the start of `buffer`.
    package static func read(_ fd: FileDescriptor, into buffer: inout [UInt8]) throws(Errno) -> Int {
        var result: Result<Int, Errno> = .success(0)
        buffer.withUnsafeMutableBytes { bytes in
            do throws(Errno) { result = .success(try read(fd, bytes)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// Writes every byte of `data`.
    package static func writeAll(_ fd: FileDescriptor, _ data: Data, path: String? = nil) throws(Errno) {
        var result: Result<Void, Errno> = .success(())
        data.withUnsafeBytes { bytes in
            do throws(Errno) { try writeAll(fd, bytes, path: path) } catch { result = .failure(error) }
        }
        try result.get()
    }

    package static func pread(
        _ fd: FileDescriptor, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String? = nil
    ) throws(Errno) -> Int {
        try retrying(.read, path) { system_pread(fd.rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// One `write(2)`; may write fewer bytes than asked (and will, when a short write is injected).
    package static func write(_ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, path: String? = nil) throws(Errno)
        -> Int
    {
        #if STRATA_FAULT_INJECTION
            var count = buffer.count
            faults: while FaultInjector.isArmed, let fault = FaultInjector.shared.fault(for: .write, path: path) {
                switch fault {
                case .error(let code): throw Errno(code)
                case .interrupt: continue  // Retried by the seam, as a real EINTR would be.
                case .shortWrite(let limit):
                    count = max(0, min(count, limit))
                    if count == 0 { return 0 }
                    break faults
                case .kill: break faults  // Not returned: the injector ended the process.
                }
            }
            let capped = count
        #else
            let capped = buffer.count
        #endif
        return try retrying(.write, path, consultingFaults: false) {
            system_write(fd.rawValue, buffer.baseAddress, capped)
        }
    }

    /// Writes every byte of `buffer`, continuing after short writes.
    package static func writeAll(_ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, path: String? = nil)
        throws(Errno)
    {
        var offset = 0
        var zeroWrites = 0
        while offset < buffer.count {
            let written = try write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), path: path)
            if written == 0 {
                zeroWrites += 1
                if zeroWrites > 8 { throw Errno(EIO) }
                continue
            }
            zeroWrites = 0
            offset += written
        }
    }

    package static func fsync(_ fd: FileDescriptor, path: String? = nil) throws(Errno) {
        _ = try retrying(.fsync, path) { system_fsync(fd.rawValue) }
    }

    /// `fdatasync(2)`: forces the file's data, and the metadata needed to read it back (its size), to disk; not
    /// its times. Where the call does not exist (Darwin), `fsync`.
    package static func fdatasync(_ fd: FileDescriptor, path: String? = nil) throws(Errno) {
        _ = try retrying(.fsync, path) { system_fdatasync(fd.rawValue) }
    }

    /// `posix_fadvise(POSIX_FADV_SEQUENTIAL)`: the whole file will be read in order, so the kernel may read
    /// further ahead. Advice only: a failure changes nothing and is ignored; nothing happens where the call does
    /// not exist (Darwin).
    package static func adviseSequential(_ fd: FileDescriptor) {
        #if canImport(Glibc) || canImport(Musl)
            _ = system_fadvise(fd.rawValue, POSIX_FADV_SEQUENTIAL)
        #endif
    }

    package static func rename(_ from: String, _ to: String) throws(Errno) {
        _ = try retrying(.rename, to) { from.withCString { f in to.withCString { t in system_rename(f, t) } } }
    }

    package static func unlink(_ path: String) throws(Errno) {
        _ = try retrying(.unlink, path) { path.withCString { system_unlink($0) } }
    }

    package static func mkdir(_ path: String, _ permissions: FilePermissions) throws(Errno) {
        _ = try retrying(.mkdir, path) { path.withCString { system_mkdir($0, permissions.mode) } }
    }

    package static func rmdir(_ path: String) throws(Errno) {
        _ = try retrying(.unlink, path) { path.withCString { system_rmdir($0) } }
    }

    package static func ftruncate(_ fd: FileDescriptor, _ length: Int64) throws(Errno) {
        _ = try retrying(.ftruncate, nil) { system_ftruncate(fd.rawValue, off_t(length)) }
    }

    /// `flock(2)`. The path (for the fault injector) is built only when faults are armed: callers take a lock on
    /// every write.
    package static func flock(_ fd: FileDescriptor, _ operation: Int32, path: @autoclosure () -> String? = nil)
        throws(Errno)
    {
        _ = try retrying(.lock, path()) { system_flock(fd.rawValue, operation) }
    }

    package static func fchmod(_ fd: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        _ = try retrying(.chmod, nil) { system_fchmod(fd.rawValue, permissions.mode) }
    }

    /// `lstat(2)`: information about the path itself, never following a final symbolic link.
    package static func lstat(_ path: String) throws(Errno) -> stat {
        var info = stat()
        _ = try retrying(.stat, path) { path.withCString { system_lstat($0, &info) } }
        return info
    }

    package static func fstat(_ fd: FileDescriptor) throws(Errno) -> stat {
        var info = stat()
        _ = try retrying(.stat, nil) { system_fstat(fd.rawValue, &info) }
        return info
    }
}

// The libc entry points under names that `Sys`'s own methods do not shadow. At file scope the plain names
// resolve to the C library on every platform.
private func system_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
private func system_close(_ fd: Int32) -> Int32 { close(fd) }
private func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
private func system_pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, buffer, count, offset)
}
private func system_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func system_fsync(_ fd: Int32) -> Int32 { fsync(fd) }
#if canImport(Glibc) || canImport(Musl)
    private func system_fdatasync(_ fd: Int32) -> Int32 { fdatasync(fd) }
    private func system_fadvise(_ fd: Int32, _ advice: Int32) -> Int32 { posix_fadvise(fd, 0, 0, advice) }
#else
    private func system_fdatasync(_ fd: Int32) -> Int32 { fsync(fd) }
#endif

private func system_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { rename(from, to) }
private func system_unlink(_ path: UnsafePointer<CChar>) -> Int32 { unlink(path) }
private func system_mkdir(_ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func system_rmdir(_ path: UnsafePointer<CChar>) -> Int32 { rmdir(path) }
private func system_ftruncate(_ fd: Int32, _ length: off_t) -> Int32 { ftruncate(fd, length) }
private func system_flock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
private func system_fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
private func system_lstat(_ path: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<stat>) -> Int32 {
    lstat(path, info)
}
private func system_fstat(_ fd: Int32, _ info: UnsafeMutablePointer<stat>) -> Int32 { fstat(fd, info) }

internal import CStrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Extended attributes, through the header-only CStrataSystem module (Glibc's Swift module leaves
// <sys/xattr.h> out).
extension Sys {
    /// Sets an extended attribute on an open file.
    package static func setAttribute(_ fd: FileDescriptor, _ name: String, _ value: [UInt8]) throws(Errno) {
        let status = value.withUnsafeBytes { bytes in
            name.withCString { system_fsetxattr(fd.rawValue, $0, bytes.baseAddress, bytes.count) }
        }
        if status == -1 { throw Errno(errno) }
    }

    /// Reads an extended attribute of an open file; `nil` when it is not set (or the file system has none).
    package static func attribute(_ fd: FileDescriptor, _ name: String) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { bytes in
            name.withCString { system_fgetxattr(fd.rawValue, $0, bytes.baseAddress, bytes.count) }
        }
        if count == -1 {
            let code = errno
            if code == ENODATA || code == ENOTSUP || code == ERANGE { return nil }
            throw Errno(code)
        }
        return Array(buffer[0..<count])
    }

}

#if canImport(Darwin)
    private func system_fsetxattr(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int)
        -> Int32
    {
        fsetxattr(fd, name, value, size, 0, 0)
    }
    private func system_fgetxattr(
        _ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
    ) -> Int {
        fgetxattr(fd, name, value, size, 0, 0)
    }
    private let ENODATA = ENOATTR
#else
    private func system_fsetxattr(_ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeRawPointer?, _ size: Int)
        -> Int32
    {
        fsetxattr(fd, name, value, size, 0)
    }
    private func system_fgetxattr(
        _ fd: Int32, _ name: UnsafePointer<CChar>, _ value: UnsafeMutableRawPointer?, _ size: Int
    ) -> Int {
        fgetxattr(fd, name, value, size)
    }
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Sys {
    /// `futimens(2)`: sets a file's modification time (and its access time to the same instant).
    package static func setModificationTime(_ fd: Int32, seconds: Int64, nanoseconds: Int32, path: String? = nil)
        throws(Errno)
    {
        var times = [
            timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
            timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
        ]
        _ = try retrying(.chmod, path) { system_futimens(fd, &times) }
    }
}

private func system_futimens(_ fd: Int32, _ times: UnsafePointer<timespec>) -> Int32 { futimens(fd, times) }

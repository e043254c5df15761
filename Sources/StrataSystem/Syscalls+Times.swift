#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Sys {
    /// `futimens(2)`: sets a file's modification time (and its access time to the same instant).
    package static func setModificationTime(
        _ fd: FileDescriptor, seconds: Int64, nanoseconds: Int32, path: String? = nil
    )
        throws(Errno)
    {
        var times = [
            timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
            timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)),
        ]
        _ = try retrying(.chmod, path) { system_futimens(fd.rawValue, &times) }
    }
}

extension Sys {
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: the CPU time the calling thread has used so far, in nanoseconds
    /// (user and system). It cannot fail for the calling thread's clock; 0 if it did.
    package static func threadCPUNanoseconds() -> Int64 {
        var time = timespec()
        guard system_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

private func system_clock_gettime(_ clock: clockid_t, _ time: UnsafeMutablePointer<timespec>) -> Int32 {
    clock_gettime(clock, time)
}

private func system_futimens(_ fd: Int32, _ times: UnsafePointer<timespec>) -> Int32 { futimens(fd, times) }

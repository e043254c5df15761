#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Waiting on a socket with a deadline (the PostgreSQL engine bounds every wait for its server this way).
extension Sys {
    /// Waits until `fd` is ready for `events` (`POLLIN`, `POLLOUT`) or the deadline passes, retrying `EINTR`
    /// with the time that is left.
    /// - Parameter deadline: When to give up; `nil` waits as long as it takes. One that has passed (`.now`) asks
    ///   once without waiting.
    /// - Returns: The events that are ready (`revents`), or 0 when the deadline passed first.
    package static func poll(_ fd: FileDescriptor, events: Int16, until deadline: ContinuousClock.Instant?)
        throws(Errno)
        -> Int16
    {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = max(.zero, ContinuousClock.now.duration(to: deadline))
                let (seconds, attoseconds) = left.components
                // Rounded up, so that a wait never ends a little before its deadline (and only a deadline that
                // has passed polls without waiting).
                let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: milliseconds)
            }
            var descriptor = pollfd(fd: fd.rawValue, events: events, revents: 0)
            #if canImport(Glibc)
                let ready = Glibc.poll(&descriptor, 1, timeout)
            #elseif canImport(Musl)
                let ready = Musl.poll(&descriptor, 1, timeout)
            #else
                let ready = Darwin.poll(&descriptor, 1, timeout)
            #endif
            if ready == -1 {
                if errno == EINTR { continue }
                throw Errno(errno)
            }
            if ready > 0 { return descriptor.revents }
            // Nothing ready: the loop checks the deadline again (a wait may wake a millisecond early).
            if timeout == 0 { return 0 }
        }
    }
}

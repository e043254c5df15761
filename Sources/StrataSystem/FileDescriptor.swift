#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file descriptor: a file, a folder, a socket or a terminal that this process holds open.
///
/// A typed wrapper, so that a descriptor is never mistaken for a count, a signal or an `errno`. Its operations are
/// ``Sys``'s (`Sys.read(fd, ...)`, `Sys.fsync(fd)`, ...), which retry on `EINTR` and report failure as ``Errno``;
/// only the seam reads ``rawValue``, at the C call. Whoever opened a descriptor closes it, with ``close()`` or,
/// around the code that uses it, ``closeAfter(_:)``:
///
/// ```swift
/// let fd = try Sys.open("/etc/hostname", .readOnly)
/// let count = try fd.closeAfter { try Sys.read(fd, into: &buffer) }
/// ```
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The descriptor's number, as the C library knows it.
    public let rawValue: Int32

    /// Wraps a descriptor number (one this process holds open, or one received from a C library).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Standard input (descriptor 0).
    package static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)
    /// Standard output (descriptor 1).
    package static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    /// Standard error (descriptor 2).
    package static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    /// Closes the descriptor (`close(2)`, never retried: on Linux the descriptor is gone even when it reports
    /// `EINTR`). It must not be used again.
    package func close() { Sys.close(self) }

    /// Runs `body`, then closes the descriptor, whether `body` returns or throws.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func closeAfter<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        defer { Sys.close(self) }
        return try body()
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// What `open(2)` is asked for: how the file is read or written, and the flags that change how it is opened. Every
// open through ``Sys`` adds `O_CLOEXEC` itself.
extension FileDescriptor {
    /// Whether a file is opened for reading, writing or both (`O_RDONLY`, `O_WRONLY`, `O_RDWR`).
    package struct AccessMode: RawRepresentable, Hashable, Sendable {
        /// The `O_` constant.
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `O_RDONLY`.
        package static let readOnly = AccessMode(rawValue: O_RDONLY)
        /// `O_WRONLY`.
        package static let writeOnly = AccessMode(rawValue: O_WRONLY)
        /// `O_RDWR`.
        package static let readWrite = AccessMode(rawValue: O_RDWR)
    }

    /// The flags of an open beside its access mode.
    package struct OpenOptions: OptionSet, Hashable, Sendable {
        /// The `O_` constants, or-ed together.
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `O_CREAT`: creates the file when there is none (with the permissions the open names).
        package static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_EXCL`: with ``create``, fails with `EEXIST` when the name is taken.
        package static let exclusive = OpenOptions(rawValue: O_EXCL)
        /// `O_TRUNC`: empties a regular file opened for writing.
        package static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_APPEND`: every write goes to the end of the file.
        package static let append = OpenOptions(rawValue: O_APPEND)
        /// `O_DIRECTORY`: fails with `ENOTDIR` unless the path names a folder.
        package static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NOFOLLOW`: fails with `ELOOP` when the last component is a symbolic link.
        package static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: never waits to open (a FIFO without a writer, a device).
        package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_NOCTTY`: a terminal opened does not become the process's controlling terminal.
        package static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    }
}

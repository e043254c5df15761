#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Sys {
    /// `linkat(2)` without `AT_SYMLINK_FOLLOW`: a second name, `newName` in the folder `newDirectory`, for the
    /// file `name` in the folder `directory` (a link there gets a second name itself, never its target). An
    /// import keeps the previous version of each file it replaces this way, so that a failed commit can put it
    /// back. `path` (the new name's display path) is for the fault injector's filters and messages only.
    package static func linkat(
        _ directory: FileDescriptor, _ name: String, _ newDirectory: FileDescriptor, _ newName: String, path: String
    ) throws(Errno) {
        _ = try retrying(.link, path) {
            name.withCString { from in
                newName.withCString { to in system_linkat(directory.rawValue, from, newDirectory.rawValue, to) }
            }
        }
    }
}

// The libc entry point under a name that `Sys.linkat` does not shadow.
private func system_linkat(
    _ directory: Int32, _ name: UnsafePointer<CChar>, _ newDirectory: Int32, _ newName: UnsafePointer<CChar>
) -> Int32 {
    linkat(directory, name, newDirectory, newName, 0)
}

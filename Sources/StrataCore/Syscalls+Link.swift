#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Sys {
    /// `link(2)`: a second name for an existing file. An import keeps the previous version of each file it
    /// replaces this way, so that a failed commit can put it back.
    package static func link(_ existing: String, _ new: String) throws(Errno) {
        _ = try retrying(.link, new) { existing.withCString { from in new.withCString { system_link(from, $0) } } }
    }
}

// The libc entry point under a name that `Sys.link` does not shadow.
private func system_link(_ existing: UnsafePointer<CChar>, _ new: UnsafePointer<CChar>) -> Int32 { link(existing, new) }

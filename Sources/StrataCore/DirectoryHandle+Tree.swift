#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DirectoryHandle {
    /// Removes `name` inside this folder and everything under it, never through a link (a link is removed, its
    /// target is not touched). Best effort: what cannot be removed stays.
    package func removeTree(_ name: String) {
        guard let info = try? status(of: name) else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR, let folder = try? openDirectory(name, create: false) {
            for entry in (try? folder.entries()) ?? [] { folder.removeTree(entry) }
            try? removeDirectory(name)
        } else {
            try? unlink(name)
        }
    }
}

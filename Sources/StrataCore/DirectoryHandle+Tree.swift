package import StrataSystem

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
    ///
    /// The tree is flattened rather than walked: a folder inside `name` that is not empty has its entries moved up
    /// into `name` (`renameat`) and is then removed. No recursion and at most two descriptors open, so a tree of any
    /// depth is removed (a walk that recursed ran out of stack, one that kept a descriptor a level out of them).
    package func removeTree(_ name: String) {
        guard let info = try? status(of: name) else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR, let top = try? openDirectory(name, create: false) else {
            try? unlink(name)
            return
        }
        var moved = 0
        while let entries = try? top.entries(), !entries.isEmpty {
            var changed = false
            for entry in entries where top.removeOrFlatten(entry, moved: &moved) { changed = true }
            // Each change removes an entry or moves one a level up, so this ends; when nothing changed, what is
            // left cannot be removed.
            if !changed { break }
        }
        try? removeDirectory(name)
    }

    /// Removes the entry `entry` when it is a file, a link or an empty folder; otherwise moves its entries up into
    /// this folder and then removes it.
    /// - Returns: Whether anything was removed or moved.
    private func removeOrFlatten(_ entry: String, moved: inout Int) -> Bool {
        guard let info = try? status(of: entry) else { return false }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return (try? unlink(entry)) != nil }
        var changed = false
        if let folder = try? openDirectory(entry, create: false) {
            for inner in (try? folder.entries()) ?? [] where moveUp(inner, from: folder, moved: &moved) {
                changed = true
            }
        }
        if (try? removeDirectory(entry)) != nil { changed = true }
        return changed
    }

    /// Moves the entry `inner` of `folder` into this folder under a new name of the reserved prefix; a name taken
    /// already is tried again with the next (a file there is replaced: it is in the tree being removed).
    private func moveUp(_ inner: String, from folder: DirectoryHandle, moved: inout Int) -> Bool {
        for _ in 0..<64 {
            moved += 1
            do throws(Errno) {
                try folder.rename(inner, to: StoragePaths.reservedPrefix + "removing-\(moved)", in: self)
                return true
            } catch let error where [ENOTEMPTY, EEXIST, EISDIR, ENOTDIR, EINVAL].contains(error.code) {
                continue
            } catch {
                return false
            }
        }
        return false
    }
}

import StrataCore
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder a restore builds a store for, opened through the folder that holds it: a restore stages the store
/// beside it (``RestoreStaging``) and moves it there with one rename(2).
package struct RestoreTarget {
    /// The target as the caller named it, for errors.
    package let path: String
    /// The folder that holds the target, open.
    package let parent: DirectoryHandle
    /// The target's last component: its name in ``parent``.
    package let name: String

    /// Opens the folder that holds `root`.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when `root` names no folder, or the error of opening
    ///   the folder that holds it.
    package init(_ root: String) throws {
        // A target is a folder: `new/` names the folder `new`. Split by bytes, as a path is (a `/` before a combining
        // mark is one `Character`).
        let target = LocalPath(root)
        guard let name = target.lastComponent else {
            throw StorageError(.invalidArgument, "the restore's target names no folder", path: root)
        }
        let parentPath = target.parent.string
        do throws(Errno) {
            parent = try DirectoryHandle.open(path: parentPath)
        } catch {
            throw error.storageError("cannot open the folder the store is restored into", path: parentPath)
        }
        self.path = root
        self.name = name
    }

    /// Checks that nothing is in the way of a new store: the target does not exist, or is a folder that holds
    /// nothing but the entries named in `allowed` (none by default: an empty folder).
    /// - Throws: ``/StrataCore/StorageError`` `.conflict` naming the target otherwise.
    package func checkVacant(allowing allowed: Set<String> = []) throws {
        guard let info = try? parent.status(of: name) else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR, let folder = try? parent.openDirectory(name, create: false) else {
            throw occupied()
        }
        guard (try? folder.holdsOnly(allowed)) == true else { throw occupied() }
    }

    /// The refusal of a target that exists and is not an empty folder.
    func occupied() -> StorageError {
        StorageError(
            .conflict, "the restore's target exists and is not an empty folder", path: path,
            recovery: "Restore into a new folder, or remove this one first")
    }
}

import Foundation
package import StrataSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The folder operations that report a failure as a `StorageError` with the store's wording.
extension DirectoryHandle {
    /// Opens the folder `name` inside this one, never through a symbolic link.
    ///
    /// Missing folders are created (`mkdirat`) when `create` is `true`, with exactly `permissions`; when another
    /// process creates it meanwhile (`EEXIST`), it is opened and checked like any existing one.
    /// - Returns: The folder, or `nil` when it does not exist and `create` is `false`.
    /// - Throws: ``StorageError`` `.symbolicLink` when `name` is a link, `.invalidArgument` when it is not a
    ///   folder, or an I/O error.
    package func openDirectory(_ name: String, create: Bool, permissions: FilePermissions = 0o700)
        throws(StorageError)
        -> DirectoryHandle?
    {
        let childPath = path(of: name)
        var created = false
        for _ in 0..<16 {
            let opened: FileDescriptor
            do throws(Errno) {
                opened = try Sys.openat(fd, name, .readOnly, [.directory, .noFollow], path: childPath)
            } catch let error where error.code == ENOENT {
                guard create else { return nil }
                do throws(Errno) {
                    try Sys.mkdirat(fd, name, permissions, path: childPath)
                    created = true
                } catch let error where error.code == EEXIST {
                    // Made by someone else meanwhile: open it and check it as an existing one.
                } catch {
                    throw error.storageError("cannot create a folder", path: childPath)
                }
                continue
            } catch let error where error.code == ELOOP || error.code == ENOTDIR {
                try refuseNonFolder(name)
                continue  // A folder again by now: it was swapped meanwhile; open it afresh.
            } catch {
                throw error.storageError("cannot open a folder", path: childPath)
            }
            let handle = DirectoryHandle(fd: opened, path: childPath)
            // The mode given to mkdirat is filtered by the umask: set it exactly on the folder just made.
            if created {
                do throws(Errno) { try Sys.fchmod(opened, permissions) } catch {
                    throw error.storageError("cannot set the mode of a new folder", path: childPath)
                }
            }
            return handle
        }
        throw StorageError(
            .symbolicLink, "a folder on the way kept being swapped for a link or a file while it was being opened",
            path: childPath, recovery: "Find who replaces folders in the store; the store never follows links")
    }

    /// Throws the right error for `name`, which could not be opened as a folder; returns when it is a folder
    /// again by now, or gone (it was swapped meanwhile, and the caller tries again: a folder gone is then
    /// missing, as if it had been removed before the first try).
    private func refuseNonFolder(_ name: String) throws(StorageError) {
        let childPath = path(of: name)
        let info: stat
        do throws(Errno) {
            info = try Sys.fstatat(fd, name, path: childPath)
        } catch let error where error.code == ENOENT {
            return
        } catch {
            throw error.storageError("cannot inspect a folder", path: childPath)
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw StorageError(
                .symbolicLink, "a folder on the way is a symbolic link, which the store never follows",
                path: childPath, recovery: "Replace the link with a real folder inside the store")
        }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            throw StorageError(.invalidArgument, "a folder on the way is not a folder", path: childPath)
        }
    }

    /// `fsync`s the folder, so that a rename or unlink inside it is durable.
    /// - Throws: ``StorageError``.
    package func sync() throws(StorageError) {
        do throws(Errno) { try Sys.fsync(fd, path: path) } catch {
            throw error.storageError("cannot flush the folder to disk", path: path)
        }
    }
}

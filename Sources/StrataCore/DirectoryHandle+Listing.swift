package import Foundation  // `stat`, from the platform's C library
package import StrataSystem

extension DirectoryHandle {
    /// The names in this folder, unsorted, or a ``StorageError`` naming the folder and `tier`.
    package func entries(of tier: Tier?) throws(StorageError) -> [String] {
        do throws(Errno) {
            return try entries()
        } catch {
            throw error.storageError("cannot list the folder", tier: tier, path: path)
        }
    }

    /// The status of an entry found by listing this folder: `nil` when it was removed meanwhile, and a
    /// ``StorageError`` naming the entry and `tier` when it cannot be read (a walk that skipped it would leave out
    /// what it holds without a word).
    package func status(ofListed name: String, tier: Tier?) throws(StorageError) -> stat? {
        do throws(Errno) {
            return try status(of: name)
        } catch {
            throw error.storageError("cannot inspect a listed entry", tier: tier, path: path(of: name))
        }
    }

    /// Opens a folder found by listing this folder, without following links: `nil` when it was removed meanwhile,
    /// or swapped for a link or a file (a walk skips it, never follows it); a ``StorageError`` when it cannot be
    /// opened.
    package func openListedFolder(_ name: String) throws(StorageError) -> DirectoryHandle? {
        let child: DirectoryHandle?
        do throws(StorageError) {
            child = try openDirectory(name, create: false)
        } catch {
            guard error.code == .symbolicLink || error.code == .invalidArgument else { throw error }
            child = nil
        }
        return child
    }
}

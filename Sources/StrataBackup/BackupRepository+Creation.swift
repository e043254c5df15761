import Foundation
import StrataCore
import StrataSystem

// What a new repository's folder may hold before it is made, and what a failed creation leaves.
extension BackupRepository {
    /// Makes `folder` ready for a new repository, under its exclusive lock: it must be empty, or hold only what an
    /// interrupted creation left (the lock file, the four folders, unused key slots, temporaries), which is
    /// removed. A folder is a repository only once its `config` exists, so nothing removed was ever usable.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when the folder holds anything else (nothing is
    ///   changed then), or an I/O error.
    static func clearInterruptedCreation(in folder: DirectoryHandle) throws {
        let leftovers = try interruptedCreation(in: folder)
        for (name, inside, files) in leftovers {
            do throws(Errno) {
                for file in files { try inside.unlink(file) }
                try folder.removeDirectory(name)
            } catch {
                throw error.storageError("cannot remove what an interrupted creation left", path: folder.path(of: name))
            }
        }
        if !leftovers.isEmpty { try folder.sync() }
    }

    /// The folders an interrupted creation left in `folder`, each open and with the files it holds.
    /// - Throws: ``/StrataCore/StorageError`` `.invalidArgument` when `folder` holds anything else.
    static func interruptedCreation(in folder: DirectoryHandle) throws -> [(String, DirectoryHandle, [String])] {
        if (try? folder.status(of: "config")) != nil {
            throw StorageError(
                .invalidArgument, "the folder is a backup repository already", path: folder.path,
                recovery: "Open it, or give a new or empty folder for a new repository")
        }
        let notEmpty = StorageError(
            .invalidArgument, "the folder exists and is not empty", path: folder.path,
            recovery: "Give a new or empty folder for a new repository")
        AtomicFile.removeStaleTemporaries(in: folder)
        var leftovers: [(String, DirectoryHandle, [String])] = []
        for name in try entries(of: folder, unless: notEmpty) where name != "lock" {
            // A file or a link in a folder's place is not one a creation made.
            guard folderNames.contains(name), let inside = try? folder.openDirectory(name, create: false) else {
                throw notEmpty
            }
            AtomicFile.removeStaleTemporaries(in: inside)
            let files = try entries(of: inside, unless: notEmpty)
            // Only `keys` gets a file before the configuration exists: the first key slot.
            guard files.allSatisfy({ name == "keys" && isID($0) }) else { throw notEmpty }
            leftovers.append((name, inside, files))
        }
        return leftovers
    }

    /// The names in `folder`; `refusal` when one of them is not UTF-8.
    private static func entries(of folder: DirectoryHandle, unless refusal: StorageError) throws -> [String] {
        let listed: (names: [String], undecodable: Int)
        do throws(Errno) { listed = try Sys.directoryEntries(folder.fd, path: folder.path) } catch {
            throw error.storageError("cannot list the repository folder", path: folder.path)
        }
        guard listed.undecodable == 0 else { throw refusal }
        return listed.names
    }

    /// Removes what a creation that failed made: its key slot, the repository's folders while empty, and with
    /// `path` (the folder it made) the lock file and that folder.
    static func removeCreation(in folder: DirectoryHandle, slot: String, folder path: String?) {
        if let keys = try? folder.openDirectory("keys", create: false) { try? keys.unlink(slot) }
        for name in folderNames {
            if let inside = try? folder.openDirectory(name, create: false) {
                AtomicFile.removeStaleTemporaries(in: inside)
            }
            try? folder.removeDirectory(name)
        }
        guard let path else { return }
        try? folder.unlink("lock")
        try? Sys.rmdir(path)
    }
}

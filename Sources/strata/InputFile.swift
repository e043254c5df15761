import Foundation
import Strata

/// A file a verb reads its input from (`defaults import FILE`, `secrets set --value-file FILE`, `files put KEY FILE`):
/// when it cannot be read, a typed error that says why, names the path and the fix.
enum InputFile {
    /// The contents of the file at `path`.
    /// - Throws: ``StorageError`` from ``unreadable(_:tier:key:)`` when it cannot be read.
    static func contents(_ path: String, tier: Tier? = nil, key: String? = nil) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw unreadable(path, tier: tier, key: key)
        }
        return data
    }

    /// A handle that reads the file at `path` (a folder is refused before it is opened: reading one fails late).
    /// - Throws: ``StorageError`` from ``unreadable(_:tier:key:)`` when it cannot be read.
    static func handle(_ path: String, tier: Tier? = nil, key: String? = nil) throws -> FileHandle {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        guard !(exists && isFolder.boolValue), let handle = FileHandle(forReadingAtPath: path) else {
            throw unreadable(path, tier: tier, key: key)
        }
        return handle
    }

    /// The error for an input file that could not be read: `not-found` when nothing is there, `invalid-argument`
    /// for a folder, `permission-denied` otherwise.
    static func unreadable(_ path: String, tier: Tier?, key: String? = nil) -> StorageError {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return StorageError(
                .notFound, "there is no input file at this path", tier: tier, key: key, path: path,
                recovery: "Check the path of the file to read")
        }
        if isFolder.boolValue {
            return StorageError(
                .invalidArgument, "the input is a folder, not a file", tier: tier, key: key, path: path,
                recovery: "Name a regular file")
        }
        return StorageError(
            .permissionDenied, "cannot read the input file", tier: tier, key: key, path: path,
            recovery: "Check the file's owner and mode")
    }
}

import StrataCore

@testable import StrataFiles
@testable import StrataLocalFiles

/// What the POSIX-only tests reach behind a store's back: its engine's folder, paths and locks.
extension FileStore {
    var posix: PosixFileEngine { engine as! PosixFileEngine }
    var directory: String { posix.directory }
    var paths: StoragePaths { posix.paths }
    func lock(for key: String) throws -> FileLock { try posix.lock(for: key) }
}

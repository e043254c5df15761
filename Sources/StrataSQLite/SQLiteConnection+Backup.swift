internal import CSQLite
import StrataCore
import StrataRecords

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SQLiteConnection {
    /// Copies this database whole into `destination` with SQLite's online backup API, in one step: the copy is
    /// read inside one read transaction, so it is the database at one point in time (in WAL mode writers go on
    /// meanwhile; a checkpoint cannot reach pages the read still needs).
    /// - Throws: ``/StrataCore/StorageError`` when the copy fails (`.lockTimeout` when the database stayed busy).
    func backup(into destination: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(
                sqlite3_errcode(destination.handle), "cannot start the backup of the database", operation: "capture")
        }
        var status = SQLITE_OK
        var attempts = 0
        repeat {
            status = sqlite3_backup_step(backup, -1)
            if status == SQLITE_BUSY || status == SQLITE_LOCKED {
                attempts += 1
                usleep(10_000)
            }
        } while (status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED) && attempts < 1000
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw error(status == SQLITE_DONE ? finished : status, "cannot copy the database", operation: "capture")
        }
    }
}

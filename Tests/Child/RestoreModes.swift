import Foundation
import Strata
import StrataTestSupport

/// The child modes of the PostgreSQL restore tests; `false` when `arguments` names none of them.
///
/// `restore-postgres CAPTURE TARGET URL SCHEMA`: restores the capture in folder CAPTURE to TARGET, its records
/// into SCHEMA at URL, then says `restored`.
func runRestoreMode(_ arguments: [String]) throws -> Bool {
    switch (arguments.first, arguments.count) {
    case ("restore-postgres", 5):
        let capture = try FolderCapture(folder: arguments[1])
        try Storage.restore(
            from: capture, to: arguments[2], records: .postgres(url: arguments[3], schema: arguments[4]))
        say("restored")
        return true
    default:
        return false
    }
}

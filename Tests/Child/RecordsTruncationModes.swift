import Foundation
import StrataCore
import StrataRecords
import StrataSQLite
import StrataTestSupport

/// The child mode that reads a record store while another process truncates its file; `false` when `arguments`
/// names no such mode.
func runRecordsTruncationMode(_ arguments: [String]) throws -> Bool {
    guard arguments.first == "records-read-until" else { return false }
    // records-read-until PATH STOPFILE [CACHEKIB]: read every record of collection `items` again and again, saying
    // `pass N ok COUNT` after a pass that read COUNT records or `pass N error CODE` after one that failed with a
    // `StorageError`, until STOPFILE exists; then say `stopped` and exit normally. A signal ends it otherwise.
    // CACHEKIB sets each connection's page cache (the store's default otherwise).
    var configuration = RecordsConfiguration()
    if arguments.count > 3, let kibibytes = Int(arguments[3]) { configuration.pageCacheKibibytes = kibibytes }
    let store = try RecordStore(path: arguments[1], configuration: configuration)
    let items = try store.collection(BatchItem.self, named: "items")
    var pass = 1
    while !FileManager.default.fileExists(atPath: arguments[2]) {
        do {
            say("pass \(pass) ok \(try items.fetch().count)")
        } catch let error as StorageError {
            say("pass \(pass) error \(error.code)")
        }
        pass += 1
    }
    say("stopped")
    return true
}

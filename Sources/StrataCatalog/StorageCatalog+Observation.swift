import Foundation
package import StrataCore
import StrataSystem

// What observing a store asks of the file catalog: a count of observers shared by every process, and the records that
// say a key's value changed where it was (which nobody records while nobody observes).
extension StorageCatalog {
    /// Whether any process observes the store now: an atomic load of the shared count.
    package var isObserved: Bool { observers.value > 0 }

    /// Counts an observation in, for every process: writes that leave a key where it was are recorded from now on.
    package func beginObserving() { observers.bump() }

    /// Counts an observation out (never below 0). A process that dies observing leaves the count raised: writes then
    /// go on being recorded, which costs a log append each and loses nothing.
    package func endObserving() { observers.decrement() }

    /// Records that `keys` were written in `tier` through the tier's own API, under the log lock, from the catalog
    /// caught up with the log: a key placed in `tier` gets its entry again with a later modification time; a key the
    /// catalog does not place is recorded where it was written (rule `found`, as a read that finds it records it).
    /// A key placed in another tier, or under a move, is left alone: whoever moves it records the result.
    /// - Parameter backend: The name of the tier's active backend, for a key recorded anew.
    package func recordRewrite(of keys: [String], in tier: Tier, backend: String) throws {
        try appending { state in
            var records: [CatalogRecord] = []
            for key in keys where state.intents.isEmpty || state.intents[ExactString(key)] == nil {
                if var entry = state.entries[key] {
                    guard entry.tier == tier else { continue }
                    entry.modified = max(Date().timeIntervalSince1970, entry.modified.nextUp)
                    records.append(.set(key: key, entry: entry))
                } else {
                    let location = StorageLocation(
                        key: key, tier: tier, backend: backend, ruleID: "found", kind: nil, contentType: nil,
                        size: 0, modified: Date())
                    records.append(.set(key: key, entry: try entry(for: location, in: &state)))
                }
            }
            return records
        }
    }
}

package import StrataSystem
import Synchronization

/// The ledgers of the store roots this process has open with `Storage`, by root folder: how a tier store opened on
/// its own (``TierPlacement``) finds the catalog of its root. Entries are weak: a ledger stays while its `Storage`
/// (or a tier store it opened) holds it.
package final class PlacementLedgers: Sendable {
    package static let shared = PlacementLedgers()

    private struct Entry {
        weak var ledger: (any PlacementLedger)?
    }

    private let entries = Mutex<[FolderIdentity: [Entry]]>([:])

    private init() {}

    /// Makes `ledger` the one tier stores opened on `root` report to, while it lives.
    package func register(_ ledger: any PlacementLedger, root: FolderIdentity) {
        entries.withLock { entries in
            var list = entries[root, default: []].filter { $0.ledger != nil }
            list.append(Entry(ledger: ledger))
            entries[root] = list
        }
    }

    /// The live ledger of `root` registered last, or `nil` when no `Storage` of this process has it open.
    package func ledger(for root: FolderIdentity) -> (any PlacementLedger)? {
        entries.withLock { entries in entries[root]?.last { $0.ledger != nil }?.ledger }
    }
}

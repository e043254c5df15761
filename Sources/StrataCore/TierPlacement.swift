import StrataSystem

/// How a tier store keeps its store root's catalog true (see ``PlacementLedger``): every change the store makes to
/// keys a catalog places goes through ``change(setting:removing:_:)``.
///
/// A store opened by `Storage` is given its ledger. A store opened on its own on a store root finds the ledger of
/// a `Storage` this process has open on that root; with none open, a root that keeps a catalog refuses the store's
/// changes (`.conflict`), since nothing would record them. A store on no root, or on a root without a catalog, or
/// one the catalog does not place (another suite, keyring or record store) changes what it likes.
package struct TierPlacement: Sendable {
    private enum Binding: Sendable {
        case unbound
        case ledger(any PlacementLedger)
        /// A store root; `isCatalogued` when it had a catalog and names this store when the store was opened.
        case root(FolderIdentity, path: String, isCatalogued: Bool)
    }

    /// The tier of the store.
    package let tier: Tier
    private let store: String
    private let binding: Binding

    private init(tier: Tier, store: String, binding: Binding) {
        self.tier = tier
        self.store = store
        self.binding = binding
    }

    /// A store that no catalog places: on no root (an in-memory store, a store over an engine of its own).
    package static func unbound(_ tier: Tier) -> TierPlacement {
        TierPlacement(tier: tier, store: "", binding: .unbound)
    }

    /// The placement of a store on no root: of the catalog its opener gave it (`Storage` gives its own to a store it
    /// opens on a server), or of none.
    /// - Parameters:
    ///   - store: The store's name: a suite, keyring or record store (`""` for files).
    ///   - ledger: The catalog, or `nil`.
    package init(_ tier: Tier, store: String, ledger: (any PlacementLedger)?) {
        let binding: Binding = ledger.map { $0.places(tier, store: store) ? .ledger($0) : .unbound } ?? .unbound
        self.init(tier: tier, store: store, binding: binding)
    }

    /// The placement of the store of `tier` named `store` under the root `paths`: of the catalog its opener gave it,
    /// or, with none given, of the catalog a `Storage` of this process has open on the root when it writes.
    /// - Parameters:
    ///   - store: The store's name: a suite, keyring or record store (`""` for files).
    ///   - ledger: The catalog its opener gave it, or `nil` to find one by its root.
    /// - Throws: ``StorageError`` when the root cannot be inspected.
    package init(_ tier: Tier, store: String, paths: StoragePaths, ledger: (any PlacementLedger)?) throws {
        if ledger != nil {
            self.init(tier, store: store, ledger: ledger)
            return
        }
        let root = try paths.openRoot()
        let identity: FolderIdentity
        do throws(Errno) {
            identity = try FolderIdentity(root)
        } catch {
            throw error.storageError("cannot inspect the store root", tier: tier, path: paths.root)
        }
        let hasCatalog = (try? root.status(of: StoragePaths.catalogFolderName)) != nil
        self.init(
            tier: tier, store: store,
            binding: .root(identity, path: paths.root, isCatalogued: hasCatalog && Self.isNamed(tier, store, in: paths))
        )
    }

    /// Whether the configuration of the store at `paths` names `store` as the one of `tier` that its catalog
    /// places. A configuration that cannot be read names it: the store's changes are then refused rather than left
    /// unrecorded.
    private static func isNamed(_ tier: Tier, _ store: String, in paths: StoragePaths) -> Bool {
        guard let configuration = try? StoreConfiguration.read(from: paths) ?? StoreConfiguration() else { return true }
        return tier == .files || configuration.placedStore(of: tier) == store
    }

    /// The ledger the store's changes go through, or `nil` when no catalog places its keys.
    /// - Throws: ``StorageError`` `.conflict` for a store a catalog places when no `Storage` of this process has the
    ///   root open.
    package func ledger(for key: String?) throws -> (any PlacementLedger)? {
        switch binding {
        case .unbound:
            return nil
        case .ledger(let ledger):
            return ledger
        case .root(let identity, let path, let isCatalogued):
            if let ledger = PlacementLedgers.shared.ledger(for: identity) {
                return ledger.places(tier, store: store) ? ledger : nil
            }
            guard isCatalogued else { return nil }
            throw StorageError(
                .conflict,
                "the store keeps a catalog of where every key lives, and no Storage of this process has it open to "
                    + "record this change", tier: tier, key: key, path: path,
                recovery:
                    "Open the store with Storage(root:) and change the key through it (storage.\(tier.rawValue)), "
                    + "or keep a Storage open on this root while this \(tier.rawValue) store changes it")
        }
    }

    /// Runs `body`, the store's change setting `setting` and removing `removing`, through the ledger (see
    /// ``PlacementLedger/change(_:setting:removing:_:)``); at once when no catalog places the store's keys.
    /// - Parameters:
    ///   - writesInBody: Whether `body` writes the values of `setting` before it returns: then the ledger is told
    ///     they were written (``PlacementLedger/wrote(_:in:)``) once the keys' locks are released. A tier that only
    ///     stages them tells it itself when it writes them. The default is `true`.
    ///   - body: Gets the ledger (`nil` when there is none) and the keys of `setting` it claims.
    package func change<T>(
        setting: [String], removing: [String] = [], writesInBody: Bool = true,
        _ body: (_ ledger: (any PlacementLedger)?, _ claimed: Set<ExactString>) throws -> T
    ) throws -> T {
        guard let ledger = try ledger(for: setting.first ?? removing.first) else { return try body(nil, []) }
        let result = try ledger.change(tier, setting: setting, removing: removing) { claimed in
            try body(ledger, claimed)
        }
        // The values are written; telling the observers is not part of the change, which stands if this fails.
        if writesInBody, !setting.isEmpty { try? ledger.wrote(setting, in: tier) }
        return result
    }

    /// Stages a set of `key` at once, for a tier that writes late (it stages a set now, and asks
    /// ``allowsLateWrite(of:in:claimed:ledger:)`` again under its own file lock just before the write), when no
    /// catalog places the store's keys (`stage` gets `nil`), or when the catalog places the key in this tier with no
    /// move of it pending (`stage` gets the ledger, and the set is claimed): the check at the write orders the set
    /// against other processes' moves, so the key's lock would add two system calls and nothing else; this
    /// process's operations on the key are excluded while `stage` runs.
    /// - Returns: Whether `stage` ran; when not, the set goes through ``change(setting:removing:_:)``.
    /// - Throws: What ``ledger(for:)`` throws, the catalog's read errors, or what `stage` throws.
    package func stageLateSet(of key: String, _ stage: (_ ledger: (any PlacementLedger)?) throws -> Void) throws
        -> Bool
    {
        guard let ledger = try ledger(for: key) else {
            try stage(nil)
            return true
        }
        return try ledger.changeIfSettled(key, in: tier) { try stage(ledger) }
    }

    /// Whether a set of `key` staged earlier through `ledger` may still be written now (a tier that coalesces its
    /// writes asks just before the write): a claimed set (the key was placed in this tier then) only while the key
    /// is placed here still, any other only while no other tier holds the key. A set another process has since made
    /// stale (by moving the key elsewhere, or deleting it) is dropped rather than written back.
    package static func allowsLateWrite(
        of key: String, in tier: Tier, claimed: Bool, ledger: any PlacementLedger
    ) throws -> Bool {
        let placement = try ledger.placement(of: key)
        return placement.isBeingChanged || placement.isPlaced(in: tier)
            || (!claimed && placement.tier == nil && placement.movingTo == nil)
    }
}

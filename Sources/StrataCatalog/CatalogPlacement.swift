package import StrataCore
package import StrataSystem

/// A store's catalog as the ledger of the tier stores on its root (see ``/StrataCore/PlacementLedger``): a change
/// made through a tier's own API is refused when the catalog places the key in another tier, and a removal takes the
/// key's placement with it. The rule, and why it refuses rather than moves: `Documentation/Storage.md`, "Writing
/// through a tier's own API".
package final class CatalogPlacement: PlacementLedger {
    /// Where every key lives.
    let catalog: any CatalogEngine
    /// The store of each tier whose keys the catalog places (a suite, keyring, record store).
    let stores: [Tier: String]
    /// The active backend of each tier, as `configuration` names it: what a key first recorded by a write through a
    /// tier's own API is recorded with.
    let backends: [Tier: String]

    /// The tiers whose stores under the root are this machine's own (a shared store's suite and keyring): a set
    /// through them is refused, since the catalog that every machine reads must not place a key there.
    let machineLocal: Set<Tier>
    /// The configuration the ledger was made for, whose errors name its file.
    let configuration: StoreConfiguration

    /// The ledger of `catalog`, for the tier stores `configuration` names; sets through the stores of the tiers of
    /// `machineLocal` are refused.
    package init(catalog: any CatalogEngine, configuration: StoreConfiguration, machineLocal: Set<Tier> = []) {
        self.catalog = catalog
        self.machineLocal = machineLocal
        self.configuration = configuration
        self.stores = Dictionary(uniqueKeysWithValues: Tier.allCases.map { ($0, configuration.placedStore(of: $0)) })
        self.backends = Dictionary(uniqueKeysWithValues: Tier.allCases.map { ($0, configuration.backend(for: $0)) })
    }

    package func places(_ tier: Tier, store name: String) -> Bool {
        tier == .files || stores[tier].map { ExactString($0) == ExactString(name) } == true
    }

    package func change<T>(
        _ tier: Tier, setting: [String], removing: [String], _ body: (_ claimed: Set<ExactString>) throws -> T
    ) throws -> T {
        if machineLocal.contains(tier), let key = setting.first {
            throw configuration.machineLocalStoreError(tier, key: key)
        }
        // One key, the common case: its stripe alone, its placement read once.
        if setting.count + removing.count == 1 {
            let key = setting.first ?? removing[0]
            return try catalog.withKeyLockForChange(key) { placement in
                // A `Storage` operation on this thread writing the key through the tier records the result itself.
                guard let placement else { return try body(setting.isEmpty ? [] : [ExactString(key)]) }
                try Self.check(key, placement, settingIn: setting.isEmpty ? nil : tier)
                let result = try body(!setting.isEmpty && placement.tier == tier ? [ExactString(key)] : [])
                if setting.isEmpty, placement.tier == tier {
                    try catalog.record([.remove(key: key)], durable: false)
                }
                return result
            }
        }
        let keys = setting + removing
        if !keys.isEmpty, keys.allSatisfy(catalog.isLockedByCurrentThread) {
            return try body(Set(setting.map { ExactString($0) }))
        }
        return try catalog.withKeyLocks(keys) {
            let settingKeys = Set(setting.map { ExactString($0) })
            var claimed = Set<ExactString>()
            for key in keys {
                let placement = try catalog.keyPlacement(of: key)
                let sets = settingKeys.contains(ExactString(key))
                try Self.check(key, placement, settingIn: sets ? tier : nil)
                if sets, placement.tier == tier { claimed.insert(ExactString(key)) }
            }
            let result = try body(claimed)
            let unplaced = try removing.filter { try catalog.tier(of: $0) == tier }
            if !unplaced.isEmpty { try catalog.record(unplaced.map { .remove(key: $0) }, durable: false) }
            return result
        }
    }

    /// Refuses a change of `key` (under its lock) that a move a crashed process left unsettled makes unsafe, and a
    /// write through `settingIn` of a key the catalog places in another tier.
    static func check(_ key: String, _ placement: KeyPlacement, settingIn tier: Tier?) throws {
        // Under the key's lock no live process is moving it: an intent is a crashed process's.
        if let movingTo = placement.movingTo {
            throw StorageError(
                .conflict,
                "a move of the key to \(movingTo.rawValue) was interrupted and is not settled yet", tier: tier,
                key: key,
                recovery: "Open the store with Storage (which settles interrupted moves), or put, move or delete the "
                    + "key through it")
        }
        if let tier, let placed = placement.tier, placed != tier {
            throw placedElsewhere(key, in: placed, writing: tier)
        }
    }

    package func placement(of key: String) throws -> KeyPlacement {
        try catalog.keyPlacement(of: key)
    }

    package func changeIfSettled(_ key: String, in tier: Tier, _ body: () throws -> Void) throws -> Bool {
        if machineLocal.contains(tier) { throw configuration.machineLocalStoreError(tier, key: key) }
        return try catalog.changeIfSettled(key, in: tier, body)
    }

    /// Records the writes while the store is observed (``CatalogEngine/isObserved``), and nothing otherwise: a write
    /// that leaves a key where it was costs the catalog nothing while nobody listens. A key a `Storage` operation of
    /// this thread is writing is left to it: it records the result itself.
    package func wrote(_ keys: [String], in tier: Tier) throws {
        guard catalog.isObserved else { return }
        let written = keys.filter { !catalog.isLockedByCurrentThread($0) }
        guard !written.isEmpty else { return }
        try catalog.recordRewrite(of: written, in: tier, backend: backends[tier] ?? tier.rawValue)
    }

    /// Makes this the ledger of the tier stores that are opened on the store root `root` (at `path`) by themselves,
    /// while it lives (``/StrataCore/PlacementLedgers``).
    package func register(root: DirectoryHandle, path: String) throws {
        do throws(Errno) {
            PlacementLedgers.shared.register(self, root: try FolderIdentity(root))
        } catch {
            throw error.storageError("cannot inspect the store root", path: path)
        }
    }

    /// The catalog of the store at `paths` as the ledger its tier stores report to, registered for the root, for a tool
    /// that changes a store through tier stores it opens itself; `nil` when the store has no catalog. The caller keeps
    /// it while it writes.
    /// - Throws: ``/StrataCore/StorageError`` when the catalog or the configuration cannot be read.
    package static func ledger(for paths: StoragePaths) throws -> CatalogPlacement? {
        let root = try paths.openRoot()
        guard (try? root.status(of: StoragePaths.catalogFolderName)) != nil else { return nil }
        let ledger = CatalogPlacement(
            catalog: try StorageCatalog(root: paths.root),
            configuration: try StoreConfiguration.read(from: paths) ?? StoreConfiguration())
        try ledger.register(root: root, path: paths.root)
        return ledger
    }

    /// The refusal of a write through `tier` of a key the catalog places in `placed`.
    static func placedElsewhere(_ key: String, in placed: Tier, writing tier: Tier) -> StorageError {
        var error = StorageError(
            .conflict,
            "the store keeps this key in \(placed.rawValue); a write through \(tier.rawValue) would leave "
                + "a second copy", tier: tier, key: key,
            recovery: "Change it through Storage (storage.put or storage.set, which move it when it belongs "
                + "elsewhere), move it first (storage.move(key, to: .\(tier.rawValue))), or delete it and write it "
                + "again",
            suggestedTier: placed)
        error.remedy = .changeThroughStore(tier)
        return error
    }
}

// Writing through the catalog: puts that stay in their tier, moves between tiers, deletes, and finishing or
// undoing the moves a crash interrupted. Every operation on a key holds that key's catalog stripe lock for its whole
// length; the move protocol itself (intent, copy, commit, remove, settle) is `CatalogMoves`, in StrataCatalog.
import StrataCatalog
import Synchronization

extension Storage {
    /// Stores a value in the tier the selector picks for it, moving it there if the key lives in another tier.
    ///
    /// The selector sees the larger of the descriptor's estimate and the value's real size, so an under-estimated
    /// preference still goes to files when it is over budget. When the key was in another tier (a preference
    /// that became a credential, a file that became small), the value moves: the new copy is written and
    /// recorded before the old one is removed, so a crash leaves exactly one of them. A plaintext preference that
    /// becomes a credential is removed from the defaults suite file, not merely unlisted. A credential never leaves
    /// the secrets tier unless the descriptor ``/StrataCore/DataDescriptor/allowsPlaintext``.
    /// - Returns: The selection that routed it.
    /// - Throws: ``/StrataCore/StorageError`` from the selector's tier: `.noBackend` when that tier has no backend, or
    ///   the backend's own error; `.wrongTier` for a value that would take a credential out of the secrets tier.
    ///   Nothing changed then.
    @discardableResult
    public func put(_ value: Data, for key: String, as descriptor: DataDescriptor) throws -> Selection {
        try put(value, for: key, as: descriptor, contentType: descriptor.contentType)
    }

    /// ``put(_:for:as:)``, recording `contentType` in the catalog (a typed value's byte form).
    func put(_ value: Data, for key: String, as descriptor: DataDescriptor, contentType: String?) throws -> Selection {
        try StoragePaths.validateKey(key)
        var described = descriptor
        described.estimatedSize = max(descriptor.estimatedSize, value.count)
        var selected = selector.select(described)
        // Once the tier's backend is open, its facts are read in its box, which the put stages into. One not open yet
        // is opened here when its facts say it writes late (the put would open it under the key's lock otherwise).
        var target = registry.openedIfOpen(for: selected.tier)
        if let target { addFacts(of: target, to: &selected) } else { addBackendFacts(to: &selected) }
        let selection = consume selected
        if target == nil, case .coalesced? = selection.durability { target = try? opened(selection.tier, key: key) }
        if let target,
            try stageInPlace(value, for: key, in: target, by: selection, as: descriptor, contentType: contentType)
        {
            return selection
        }
        return try putUnderLock(value, for: key, by: selection, as: descriptor, contentType: contentType)
    }

    /// ``put(_:for:as:contentType:)`` holding the key's lock: settles a move left unfinished, then writes or moves the
    /// value where `selection` says.
    private func putUnderLock(
        _ value: Data, for key: String, by selected: Selection, as descriptor: DataDescriptor, contentType: String?
    ) throws -> Selection {
        var selection = selected
        try catalog.withKeyLock(key) {
            try settle(key)
            do {
                try moves.write(
                    value, to: location(of: key, by: selection, size: value.count, contentType: contentType),
                    as: descriptor, allowingPlaintext: descriptor.allowsPlaintext)
            } catch let error as StorageError
                where selection.tier == .defaults && error.tier == .defaults && error.code == .tooLarge
            {
                // The selector kept the value within the defaults value limit (the tier's own), so only the
                // suite's room can refuse it: it goes to files by a rule of its own, and nothing was changed.
                selection = selector.selection(by: .suiteFull, for: selected.descriptor)
                addBackendFacts(to: &selection)
                try moves.write(
                    value, to: location(of: key, by: selection, size: value.count, contentType: contentType),
                    as: descriptor, allowingPlaintext: descriptor.allowsPlaintext)
            }
        }
        return selection
    }

    /// A put that leaves `key` where the catalog places it, by the same rule, in a tier that writes late (a coalescing
    /// defaults suite): staged without waiting for other processes, as a set through the tier's own API is
    /// (``/StrataCatalog/CatalogEngine/stageIfPlaced(_:_:)``). Until the tier writes, no other process can see the
    /// value, and the tier asks the catalog again then, under its own file lock: a move or delete of the key by
    /// another process meanwhile wins, as it would over a put made under the key's lock and not yet written.
    /// - Returns: Whether the value was staged; when not (the key placed otherwise or unsettled, a tier that writes
    ///   at once, a credential, a suite with no room), the put takes the key's lock.
    private func stageInPlace(
        _ value: Data, for key: String, in target: BackendRegistry.Opened, by selection: Selection,
        as descriptor: DataDescriptor, contentType: String?
    ) throws -> Bool {
        // A credential outside the secrets tier is refused or allowed by the move protocol's check.
        guard selection.descriptor.kind != .credential, case .coalesced = target.facts.durability else { return false }
        let location = StorageLocation(
            key: key, tier: selection.tier, backend: target.facts.name, ruleID: selection.ruleID,
            kind: selection.descriptor.kind, contentType: contentType, size: value.count, modified: Date())
        do {
            return try catalog.stageIfPlaced(location) {
                try store(value, in: target.backend, at: location, as: descriptor)
            }
        } catch let error as StorageError where error.code == .tooLarge {
            return false  // Nothing was staged; under the key's lock, a suite with no room sends it to files.
        }
    }

    /// Where a put of `key` by `selection` records the value (`contentType`: the media type, or a typed value's
    /// byte form).
    func location(of key: String, by selection: Selection, size: Int, contentType: String?) throws -> StorageLocation {
        StorageLocation(
            key: key, tier: selection.tier, backend: try opened(selection.tier, key: key).facts.name,
            ruleID: selection.ruleID, kind: selection.descriptor.kind, contentType: contentType, size: size,
            modified: Date())
    }

    /// Moves a key's value to another tier, whatever the selector would say.
    ///
    /// A credential (a key the secrets tier holds, or that was put as a ``/StrataCore/DataKind/credential``) stays in
    /// the secrets tier unless `allowingPlaintext`: another tier would store it in plaintext. Moved out on purpose,
    /// its sealed copy is removed as every old copy is.
    /// - Parameters:
    ///   - key: The key.
    ///   - tier: The tier to move it to.
    ///   - allowingPlaintext: Whether a credential may go to a tier that stores plaintext. The default is `false`.
    /// - Returns: The key's new location (rule `move`).
    /// - Throws: ``/StrataCore/StorageError`` `.notFound` when no tier holds the key, `.wrongTier` for a credential
    ///   without `allowingPlaintext`, or the new tier's refusal (a key that looks like a credential refused by
    ///   defaults, a value too large for it); nothing changed then.
    @discardableResult
    public func move(_ key: String, to tier: Tier, allowingPlaintext: Bool = false) throws -> StorageLocation {
        try StoragePaths.validateKey(key)
        return try catalog.withKeyLock(key) {
            try settle(key)
            guard let current = try catalog.location(of: key) ?? adopt(key)?.location,
                let value = try backend(for: current.tier, key: key).data(for: key)
            else {
                throw StorageError(.notFound, "there is no value to move", tier: tier, key: key)
            }
            var location = current
            location.contentType = contentType(
                of: key, in: try backend(for: current.tier, key: key), catalogued: current.contentType)
            location.tier = tier
            location.backend = try backend(for: tier, key: key).name
            location.ruleID = "move"
            location.modified = Date()
            try moves.write(value, to: location, allowingPlaintext: allowingPlaintext)
            return location
        }
    }

    /// Deletes the value under `key` from every tier that holds one.
    /// - Returns: Whether there was a value.
    @discardableResult
    public func delete(_ key: String) throws -> Bool {
        try StoragePaths.validateKey(key)
        return try catalog.withKeyLock(key) {
            try settle(key)
            // A copy the catalog does not know would come back as "found" after the delete: remove every copy.
            var removed = false
            for tier in Tier.allCases where registry.hasBackend(for: tier) {
                // Each removal is made holding the key: one made after the lock was lost could remove the value
                // another machine put since.
                try catalog.confirmHeld(key)
                removed = try removeCopy(of: key, from: tier, skippingLocked: true) || removed
            }
            guard let recorded = try catalog.location(of: key) else { return removed }
            try catalog.record([.remove(key: key)], durable: false)
            // A tier that writes late asks the catalog, under its own file lock, before it writes a set staged while
            // the key was placed in it (another process's put or set, which takes no key lock): one that asked
            // between the removal above and this record was told yes, and put the key back. Every set asking from
            // now on is dropped, so removing it once more leaves no copy the catalog does not record.
            // (The backend's facts, asked without opening anything: a locked keyring or a server out of reach is no
            // tier that writes late, and the delete has succeeded.)
            if case .coalesced? = try? registry.facts(for: recorded.tier).durability {
                removed = try removeCopy(of: key, from: recorded.tier, skippingLocked: true) || removed
            }
            return removed
        }
    }

    /// The move protocol over this store's catalog and tiers.
    var moves: CatalogMoves { CatalogMoves(catalog: catalog, tiers: self) }

    /// Finishes or undoes an interrupted move of `key` (``/StrataCatalog/CatalogMoves/settle(_:)``), and keeps what it
    /// did for ``verifyCatalog()``. The caller holds the key's lock, so no live process is in the middle of it.
    /// - Returns: What settling did, or `nil` when the key had no interrupted move.
    @discardableResult
    func settle(_ key: String) throws -> SettledMove? {
        guard let (intent, committed) = try moves.settle(key) else { return nil }
        let settled = SettledMove(key: key, from: intent.from, to: intent.to, outcome: committed ? .finished : .undone)
        settledMoves.withLock { $0.append(settled) }
        return settled
    }

    /// Settles every move a crashed process left unfinished, except those a live process is still making.
    /// - Returns: The moves it settled (``CatalogReport/settled``), those it could not settle now, a tier being
    ///   locked or unreachable (``CatalogReport/problems``, settled by the key's next put, move or delete), and
    ///   those a live process is making (``CatalogReport/movingKeys``).
    @discardableResult
    public func settleInterruptedMoves() throws -> CatalogReport {
        var report = CatalogReport()
        for key in try catalog.unsettledKeys() {
            do {
                switch try catalog.withKeyLockIfFree(key, { try settle(key) }) {
                case .some(let settled?): report.settled.append(settled)
                case .some(nil): break  // Settled meanwhile by another process.
                case nil: report.movingKeys.append(key)
                }
            } catch let error as StorageError {
                guard let intent = try catalog.intent(for: key) else { continue }
                report.problems.append(
                    CatalogProblem(
                        key: key, kind: .unsettledMove(from: intent.from, to: intent.to),
                        error: error.attributed(tier: nil, key: key)))
            }
        }
        return report
    }
}

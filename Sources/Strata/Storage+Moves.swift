// Writing through the catalog: puts that stay in their tier, moves between tiers, deletes, and finishing or
// undoing the moves a crash interrupted.
//
// Every operation on a key holds that key's catalog stripe lock, across threads and processes, for its whole
// length, so two processes never move the same key at once and a reader that falls back to the lock sees no
// move half done. A move is:
//
//   0. flush the old tier, so the old copy is durable (a coalesced defaults write may not have reached the disk)
//   1. append `intent(key, from, to)` and fsync the log
//   2. write the value to the new tier, and flush that tier (durable)
//   3. append `set(key → new tier)` and fsync the log            ← the commit point
//   4. remove the old copy, and flush the old tier (for defaults: the suite file is rewritten without it); when
//      the value moved to secrets, the old copy is erased (`deleteSecurely`: freed SQLite pages zeroed and its
//      write-ahead log truncated, a file overwritten before it is unlinked), so no plaintext stays under the root
//   5. append `settle(key)`
//
// A crash before 3 leaves the catalog pointing at the old copy, which is untouched: recovery removes whatever
// reached the new tier. A crash after 3 leaves it pointing at the new copy, which is durable: recovery removes
// the old one. Readers go by the catalog, so they see exactly one of the two at every instant.
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
        var selection = selector.select(described)
        addBackendFacts(to: &selection)
        try catalog.withKeyLock(key) {
            try settle(key)
            do {
                try write(
                    value, to: location(of: key, by: selection, size: value.count, contentType: contentType),
                    as: descriptor, allowingPlaintext: descriptor.allowsPlaintext)
            } catch let error as StorageError
                where selection.tier == .defaults && error.tier == .defaults && error.code == .tooLarge
            {
                // The selector kept the value within the defaults value limit (the tier's own), so only the
                // suite's room can refuse it: it goes to files by a rule of its own, and nothing was changed.
                selection = selector.selection(by: .suiteFull, for: described)
                addBackendFacts(to: &selection)
                try write(
                    value, to: location(of: key, by: selection, size: value.count, contentType: contentType),
                    as: descriptor, allowingPlaintext: descriptor.allowsPlaintext)
            }
        }
        return selection
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
            try write(value, to: location, allowingPlaintext: allowingPlaintext)
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
                removed = try removeCopy(of: key, from: tier, skippingLocked: true) || removed
            }
            if try catalog.location(of: key) != nil { try catalog.record([.remove(key: key)], durable: false) }
            return removed
        }
    }

    /// Writes `value` where `location` says, moving it from another tier if the key lives elsewhere. The caller holds
    /// the key's lock, and any earlier move of the key is settled. The tier sees `descriptor` when there is one (a name
    /// allowed by ``/StrataCore/DataDescriptor/allowsSensitiveName``).
    /// - Parameter allowingPlaintext: Whether a credential may leave the secrets tier
    ///   (``/StrataCore/DataDescriptor/allowsPlaintext``, or the same argument of ``move(_:to:allowingPlaintext:)``).
    func write(
        _ value: Data, to location: StorageLocation, as descriptor: DataDescriptor? = nil,
        allowingPlaintext: Bool = false
    ) throws {
        let key = location.key
        let target = try opened(location.tier, key: key)
        let recorded = try catalog.recordedPlacement(comparedWith: location)
        let previous: (tier: Tier, kind: DataKind?)?
        if let recorded {
            previous = (recorded.tier, recorded.kind)
        } else {
            previous = try adopt(key).map { ($0.location.tier, $0.location.kind) }
        }
        if let previous, previous.tier == .secrets || previous.kind == .credential, location.tier != .secrets,
            !allowingPlaintext
        {
            throw Self.credentialLeavingSecrets(key, to: location.tier)
        }
        guard let previous, previous.tier != location.tier else {
            // Same tier, or a new key: the tier's own atomic replace is the whole story. The catalog records a
            // new placement without an fsync (a crash that loses the record loses only metadata, found again by
            // searching the tiers), and nothing at all when the placement is unchanged: the size and time of a
            // value are the tier's to tell (`location(of:)` asks it). Appending to the log on every put would make
            // each of the tier's own syncs carry the log's metadata too (one file system journal).
            try store(value, in: target.backend, at: location, as: descriptor)
            if recorded?.isUnchanged != true {
                // A new key is recorded once its tier holds it on disk: a tier that writes late (defaults) writes it
                // first, so that no other process, and no backup, meets an entry whose value is not there yet.
                if recorded == nil, case .coalesced = target.facts.durability { try target.backend.flush() }
                try catalog.record([.set(location)], durable: false)
            }
            return
        }
        let previousTier = previous.tier
        // The old copy must be durable before the move starts: a put that stayed in a coalescing tier (defaults
        // writes its suite after a delay) was acknowledged before it reached the disk, and a crash before the
        // commit point must leave it readable.
        try backend(for: previousTier, key: key).flush()
        try catalog.record([.intent(key: key, from: previousTier, to: location.tier)], durable: true)
        do {
            try store(value, in: target.backend, at: location, as: descriptor)
            try target.backend.flush()
        } catch {
            // Not committed: the catalog still points at the old copy. Undo what reached the new tier.
            _ = try? removeCopy(of: key, from: location.tier, skippingLocked: false)
            try? catalog.record([.settle(key: key)], durable: false)
            throw error
        }
        try catalog.record([.set(location)], durable: true)
        try removeCopy(of: key, from: previousTier, skippingLocked: false, securely: location.tier == .secrets)
        try catalog.record([.settle(key: key)], durable: false)
    }

    /// The refusal of a write that would take a credential out of the secrets tier.
    static func credentialLeavingSecrets(_ key: String, to tier: Tier) -> StorageError {
        var error = StorageError(
            .wrongTier, "the key holds a credential, and the \(tier.rawValue) tier would store it in plaintext",
            tier: tier, key: key,
            recovery: "Keep it in the secrets tier; to store it in plaintext on purpose, say so: "
                + "storage.move(key, to: .\(tier.rawValue), allowingPlaintext: true), or a DataDescriptor with "
                + "allowsPlaintext: true for a put",
            suggestedTier: .secrets)
        error.remedy = .allowPlaintext(tier)
        return error
    }

    /// Finishes or undoes an interrupted move of `key`, and keeps what it did for ``verifyCatalog()``. The caller
    /// holds the key's lock, so no live process is in the middle of it.
    /// - Returns: What settling did, or `nil` when the key had no interrupted move.
    @discardableResult
    func settle(_ key: String) throws -> SettledMove? {
        guard let intent = try catalog.intent(for: key) else { return nil }
        let outcome: SettledMove.Outcome
        if try catalog.location(of: key)?.tier == intent.to {
            // Committed: the new copy is current. Remove the old one.
            if let from = intent.from, from != intent.to {
                try removeCopy(of: key, from: from, skippingLocked: false, securely: intent.to == .secrets)
            }
            outcome = .finished
        } else {
            // Not committed: the old copy (or none) is current. Remove whatever reached the new tier.
            try removeCopy(of: key, from: intent.to, skippingLocked: false)
            outcome = .undone
        }
        try catalog.record([.settle(key: key)], durable: false)
        let settled = SettledMove(key: key, from: intent.from, to: intent.to, outcome: outcome)
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

    /// Removes `key` from `tier` and makes the removal durable.
    /// - Parameter securely: Whether to erase the copy's bytes too (``/StrataCore/StorageBackend/deleteSecurely(_:)``):
    ///   for the plaintext copy of a value that moved to secrets. A secure removal is flushed even when the copy was
    ///   already gone, so a retried settle finishes erasing what an interrupted one began.
    /// - Returns: Whether there was a copy.
    @discardableResult
    func removeCopy(of key: String, from tier: Tier, skippingLocked: Bool, securely: Bool = false) throws -> Bool {
        let backend: any StorageBackend
        do {
            backend = try registry.backend(for: tier)
            let removed = try securely ? backend.deleteSecurely(key) : backend.delete(key)
            guard removed || securely else { return false }
            try backend.flush()
            return removed
        } catch let error as StorageError where skippingLocked && error.code == .locked {
            return false
        }
    }
}

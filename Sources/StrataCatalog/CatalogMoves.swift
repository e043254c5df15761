package import Foundation
package import StrataCore

/// The move protocol: a write of a key through the catalog, moving its value when it changes tier, and the settling of
/// a move a crash interrupted (`Documentation/Storage.md`, "Moves, and why a crash cannot split one").
///
/// Every call is made holding the key's lock (``CatalogEngine/withKeyLock(_:_:)``), across threads and processes, so
/// two processes never move the same key at once and a reader that falls back to the lock sees no move half done. A
/// move of a key from tier A to tier B is:
///
/// 0. flush A, so the old copy is durable (a coalesced defaults write may not have reached the disk);
/// 1. record `intent(key, A → B)`, durably;
/// 2. write the value to B, and flush B;
/// 3. record `set(key → B)`, durably: the commit point;
/// 4. remove the copy from A, and flush A; when B is secrets, the copy is erased
///    (``/StrataCore/StorageBackend/deleteSecurely(_:)``), so no plaintext stays under the root;
/// 5. record `settle(key)`.
///
/// A crash before 3 leaves the catalog naming the old copy, which is untouched: ``settle(_:)`` removes whatever
/// reached B. A crash after 3 leaves it naming the new copy, which is durable: ``settle(_:)`` removes the old one.
/// Readers go by the catalog, so they see exactly one of the two at every instant.
///
/// A lock that lives in a server's session can be lost while its holder runs (the session ends): every catalog call
/// the holder makes after that fails with `.lockLost`, so it records nothing more, and before it removes a copy it
/// confirms that it still holds the lock. Each step that touches a tier follows a catalog call made under the lock,
/// so a holder that lost its lock makes at most the one tier step it had started (see "Fencing" in
/// `Documentation/Storage.md`).
package struct CatalogMoves: Sendable {
    /// Where every key lives.
    package let catalog: any CatalogEngine
    /// The tiers the values are in.
    package let tiers: any CatalogTiers

    /// The move protocol over `catalog` and `tiers`.
    package init(catalog: any CatalogEngine, tiers: any CatalogTiers) {
        self.catalog = catalog
        self.tiers = tiers
    }

    /// Writes `value` where `location` says, moving it from another tier if the key lives elsewhere. The caller holds
    /// the key's lock, and any earlier move of the key is settled (``settle(_:)``).
    /// - Parameters:
    ///   - value: The bytes.
    ///   - location: Where they go: the key, its tier, backend, rule, kind and content type.
    ///   - descriptor: What the tier sees, when there is one (a name allowed by
    ///     ``/StrataCore/DataDescriptor/allowsSensitiveName``).
    ///   - allowingPlaintext: Whether a credential may leave the secrets tier. The default is `false`.
    /// - Throws: ``/StrataCore/StorageError`` `.wrongTier` for a credential leaving the secrets tier without
    ///   `allowingPlaintext`, or a tier's or the catalog's error. Before the commit point nothing changed then: what
    ///   reached the new tier is removed.
    package func write(
        _ value: Data, to location: StorageLocation, as descriptor: DataDescriptor? = nil,
        allowingPlaintext: Bool = false
    ) throws {
        let key = location.key
        let target = try tiers.opened(location.tier, key: key)
        let recorded = try catalog.recordedPlacement(comparedWith: location)
        var previous: (tier: Tier, kind: DataKind?)?
        if let recorded {
            previous = (recorded.tier, recorded.kind)
        } else {
            previous = try tiers.adopt(key).map { ($0.location.tier, $0.location.kind) }
        }
        if let found = previous, found.tier == .secrets || found.kind == .credential, location.tier != .secrets,
            !allowingPlaintext
        {
            // Only a credential that is there is guarded: an entry whose tier holds no value (a delete cut short
            // between the tier and the catalog) is a key with no value, which this write makes anew.
            guard try !tiers.opened(found.tier, key: key).backend.contains(key) else {
                throw Self.credentialLeavingSecrets(key, to: location.tier)
            }
            previous = nil
        }
        guard let previous, previous.tier != location.tier else {
            // Same tier, or a new key: the tier's own atomic replace is the whole story. The catalog records a
            // new placement without an fsync (a crash that loses the record loses only metadata, found again by
            // searching the tiers), and nothing at all when the placement is unchanged: the size and time of a
            // value are the tier's to tell. Appending to the log on every put would make each of the tier's own
            // syncs carry the log's metadata too (one file system journal); while the store is observed it is
            // recorded all the same, since observers learn of changes from the catalog.
            try tiers.store(value, in: target.backend, at: location, as: descriptor)
            if recorded?.isUnchanged != true {
                // A new key is recorded once its tier holds it on disk: a tier that writes late (defaults) writes it
                // first, so that no other process, and no backup, meets an entry whose value is not there yet.
                if recorded == nil, case .coalesced = target.facts.durability { try target.backend.flush() }
                try catalog.record([.set(location)], durable: false)
            } else if catalog.isObserved {
                // A tier that writes late has it recorded when it writes (`PlacementLedger.wrote(_:in:)`): recorded
                // now, the change would reach other processes before the value.
                if case .coalesced = target.facts.durability { return }
                try catalog.record([.set(location)], durable: false)
            }
            return
        }
        let previousTier = previous.tier
        // The old copy must be durable before the move starts: a put that stayed in a coalescing tier (defaults
        // writes its suite after a delay) was acknowledged before it reached the disk, and a crash before the
        // commit point must leave it readable.
        try tiers.opened(previousTier, key: key).backend.flush()
        try catalog.record([.intent(key: key, from: previousTier, to: location.tier)], durable: true)
        do {
            try tiers.store(value, in: target.backend, at: location, as: descriptor)
            try target.backend.flush()
        } catch {
            // Not committed: the catalog still points at the old copy. Undo what reached the new tier — if the key's
            // lock is still held: the failure may be its loss, and the next holder may have written the key in that
            // tier since. Then the intent stays, for that holder (or the next) to settle.
            if (try? catalog.confirmHeld(key)) != nil {
                _ = try? tiers.removeCopy(of: key, from: location.tier, skippingLocked: false, securely: false)
                try? catalog.record([.settle(key: key)], durable: false)
            }
            throw error
        }
        try catalog.record([.set(location)], durable: true)
        // The old copy is removed holding the key: once the lock is lost, another machine may have settled this move
        // and put the key back in that tier.
        try catalog.confirmHeld(key)
        _ = try tiers.removeCopy(
            of: key, from: previousTier, skippingLocked: false, securely: location.tier == .secrets)
        try catalog.record([.settle(key: key)], durable: false)
    }

    /// Finishes or undoes an interrupted move of `key`. The caller holds the key's lock, so no live process is in the
    /// middle of it.
    /// - Returns: The move that was settled, and whether it had been committed (the new copy kept, the old one
    ///   removed) or not (whatever reached the new tier removed); `nil` when the key had no interrupted move.
    /// - Throws: ``/StrataCore/StorageError`` from a tier that cannot be reached (a locked secrets tier): the move stays
    ///   pending.
    package func settle(_ key: String) throws -> (intent: CatalogIntent, committed: Bool)? {
        guard let intent = try catalog.intent(for: key) else { return nil }
        let committed = try catalog.location(of: key)?.tier == intent.to
        if committed {
            // The new copy is current. Remove the old one.
            if let from = intent.from, from != intent.to {
                _ = try tiers.removeCopy(of: key, from: from, skippingLocked: false, securely: intent.to == .secrets)
            }
        } else {
            // The old copy (or none) is current. Remove whatever reached the new tier.
            _ = try tiers.removeCopy(of: key, from: intent.to, skippingLocked: false, securely: false)
        }
        try catalog.record([.settle(key: key)], durable: false)
        return (intent, committed)
    }

    /// The refusal of a write that would take a credential out of the secrets tier.
    package static func credentialLeavingSecrets(_ key: String, to tier: Tier) -> StorageError {
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
}

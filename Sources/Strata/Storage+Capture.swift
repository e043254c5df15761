import Foundation
import StrataBackup
import StrataCatalog

// A capture of the whole store at one point in time, its instant (see `Documentation/Backup.md`, "Capture and
// restore").
//
// Cross-process rule: the capture holds every catalog key stripe (taken in stripe order) at its instant, briefly.
// Every put, move and delete through a `Storage` holds its key's stripe while it changes a tier and records the
// result, so none is half-way at the instant: the catalog and the tiers it copies describe the same instant. Each
// tier's capture runs in three steps (`TierCapture`): ahead of the instant, with no stripe held, a tier copies its
// bulk (the files tier, every file under its own lock); at the instant it copies what changed since, names the
// copies no longer current, or holds its state still (a database's read transaction); after the instant, with the
// stripes released, it copies the state it held. Writes through a tier's own API hold the key's stripe too (see
// `CatalogPlacement`, in StrataCatalog); keys they write that the catalog does not know are adopted by the restored store when read.
//
// The catalog is copied as it is, but a key it names that its tier does not hold at the instant (something outside
// Strata removed it) is listed in the capture's description: a restore drops its entry, and restores the rest.
extension Storage {
    /// Copies the whole store, consistently, into `sink`, while other threads and processes keep using it: its
    /// configuration file, every tier (each through its backend's ``/StrataCore/TierCapturing`` conformance), the
    /// catalog, and a description of what was left out.
    ///
    /// The capture describes one instant. Puts, moves and deletes through any `Storage` on this root wait only
    /// while the capture takes that instant (the files written meanwhile are copied again, the databases hold a
    /// read transaction, the small tiers are copied whole); reads never wait. A write is in the capture when it was
    /// acknowledged before the instant; for the defaults tier, whose writes another process coalesces, when it was
    /// flushed.
    ///
    /// ```swift
    /// let report = try storage.capture(into: repository.newSnapshot())
    /// report.omissions.forEach { print($0) }   // secrets: … left out: this-device-only
    /// ```
    /// - Parameter sink: Where the files go.
    /// - Returns: What was copied and what was left out.
    /// - Throws: ``/StrataCore/StorageError`` `.notBuiltIn` when a tier's backend cannot capture itself, or a tier's
    ///   or the sink's error.
    @discardableResult
    public func capture(into sink: some CaptureSink) throws -> CaptureReport {
        var report = CaptureReport()
        // Each tier's backend, opened once for the whole capture (a keyring opened locked, on a server, is a
        // connection that no writer should wait for at the instant).
        var backends: [Tier: any StorageBackend] = [:]
        for tier in Tier.allCases { backends[tier] = try capturingBackend(for: tier) }
        // Ahead of the instant: no stripe held, writers go on.
        let suspects = try catalogedKeysNotListed(in: backends)
        var steps: [any TierCapture] = []
        for tier in Tier.allCases {
            guard let backend = backends[tier] else { continue }
            guard let capturing = backend as? any TierCapturing else {
                throw StorageError(
                    .notBuiltIn, "the '\(backend.name)' backend cannot capture itself", tier: tier,
                    recovery: "Make the backend adopt TierCapturing, or back its data up with its own tools")
            }
            steps.append(try capturing.beginCapture(into: sink, root: paths.root))
        }
        steps.append(catalog.beginCapture())
        // What the steps share: the one snapshot of every tier (and the catalog) on one database server and schema.
        let instant = CaptureInstant()
        defer { instant.end() }
        // The instant: every stripe held.
        try catalog.withEveryKeyLock {
            // Writes this process coalesced go to their files first, so the catalog never names a value the
            // capture of its tier lacks; a flush that fails fails the capture (it would lack the value).
            for tier in Tier.allCases { try backends[tier]?.flush() }
            if let file = try sink.add(
                StoreConfiguration.fileName, in: paths.openRoot(), path: StoreConfiguration.fileName, tier: nil)
            {
                report.count(file)
            }
            for step in steps { report.merge(try step.pin(into: sink, at: instant)) }
            report.missingKeys = try suspects.filter { try isMissing($0, in: backends) }.map(\.key)
        }
        // After the instant: the states the tiers and the catalog held still.
        for step in steps { report.merge(try step.finish(into: sink)) }
        let description = CaptureDescription(
            version: CaptureDescription.formatVersion, created: Date().timeIntervalSince1970,
            omissions: report.omissions, withdrawn: report.withdrawnPaths, missing: report.missingKeys)
        let bytes = [UInt8](try JSONEncoder().encode(description))
        let now = Date().timeIntervalSince1970
        try sink.add(
            CapturedFile(
                path: CaptureDescription.path, tier: nil, mode: 0o600, size: Int64(bytes.count),
                modificationTime: .init(seconds: Int64(now), nanoseconds: Int32((now - now.rounded(.down)) * 1e9))),
            contents: bytes)
        return report
    }

    /// The catalogued keys that their tier's listing does not show, each with that tier: what may be missing at the
    /// capture's instant (``isMissing(_:in:)`` decides there). A tier that cannot be listed (locked) is not suspected.
    func catalogedKeysNotListed(in backends: [Tier: any StorageBackend]) throws -> [StorageLocation] {
        var listed: [Tier: Set<ExactString>] = [:]
        for (tier, backend) in backends {
            guard let keys = try? backend.keys() else { continue }
            listed[tier] = Set(keys.map { ExactString($0) })
        }
        return try catalog.locations().filter { location in
            listed[location.tier].map { !$0.contains(ExactString(location.key)) } ?? false
        }
    }

    /// Whether the tier that `suspect` names still does not hold its key (at the capture's instant, every stripe
    /// held): the key's entry is left out of the capture's catalog. A key placed elsewhere since, or in a tier that
    /// cannot say, is not missing.
    func isMissing(_ suspect: StorageLocation, in backends: [Tier: any StorageBackend]) throws -> Bool {
        guard try catalog.tier(of: suspect.key) == suspect.tier, let backend = backends[suspect.tier] else {
            return false
        }
        do {
            return try !backend.contains(suspect.key)
        } catch let error as StorageError where error.code == .locked {
            return false
        }
    }

    /// The backend whose files a capture copies for `tier`: the active one; for a secrets tier without a key, the
    /// configured keyring opened locked (``lockedKeyring()``: its items are copied sealed, so no key is needed).
    /// `nil` when the tier has no backend.
    func capturingBackend(for tier: Tier) throws -> (any StorageBackend)? {
        guard registry.hasBackend(for: tier) else { return nil }
        do {
            return try registry.backend(for: tier)
        } catch let error as StorageError where error.code == .locked && tier == .secrets {
            guard let keyring = try lockedKeyring() else { throw error }
            return keyring
        }
    }
}

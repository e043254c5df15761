import StrataCatalog
import Synchronization

// Reading and listing by the catalog: no descriptor, no guessing. An entry that names a tier which does not hold
// the key (something outside Strata removed it) is repaired when a read meets it: no answer ever reports a key
// that no tier holds.
extension Storage {
    /// The value stored under `key`, read from the tier the catalog says holds it.
    ///
    /// A key the catalog does not know (written through a tier's own API, for example `storage.defaults`) is looked
    /// for in every tier and, when exactly one holds it, recorded where it was found.
    /// - Returns: The value, or `nil` when no tier has one.
    /// - Throws: ``/StrataCore/StorageError`` from the tier, or `.conflict` when several tiers hold uncatalogued
    ///   copies.
    public func data(for key: String) throws -> Data? {
        // Optimistic: read where the catalog points, and accept the value only if the catalog did not change
        // meanwhile (a move commits in the catalog before it removes the old copy). Under a storm of changes,
        // or when the tier has no value, read under the key's lock, where nothing can move it.
        for _ in 0..<8 {
            let (tier, before, placed) = try catalog.placementAndValue(of: key, in: self)
            if let placed { return placed }
            guard let tier else { break }
            // The backend checks the key; a catalogued key passed the same checks when it was put. The box is bound
            // first: called on the box returned, the backend would be copied out of it (and retained: a backend
            // that others hold weakly takes the reference count's slow path).
            let opened = try opened(tier, key: key)
            let value = try opened.backend.data(for: key)
            if catalog.changeCount == before {
                if let value { return value }
                break
            }
        }
        try StoragePaths.validateKey(key)
        return try catalog.withKeyLock(key) {
            if let location = try catalog.location(of: key) {
                if let value = try backend(for: location.tier, key: key).data(for: key) { return value }
                return try repair(location)?.value
            }
            return try adopt(key)?.value
        }
    }

    /// Whether any tier holds a value under `key`.
    public func contains(_ key: String) throws -> Bool {
        try location(of: key) != nil
    }

    /// Where `key` lives: its tier, backend, the rule that put it there, its kind, size, content type and
    /// modification time; `nil` when no tier holds it.
    public func location(of key: String) throws -> StorageLocation? {
        try StoragePaths.validateKey(key)
        return try catalog.withKeyLock(key) {
            guard var location = try catalog.location(of: key) else { return try adopt(key)?.location }
            // The catalog records where the key lives; a put that left it there did not record the new size and
            // time, which the tier knows.
            guard let metadata = try backend(for: location.tier, key: key).metadata(for: key) else {
                return try repair(location)?.location
            }
            location.size = metadata.size
            if let modified = metadata.modificationDate { location.modified = modified }
            return location
        }
    }

    /// Every key of the store that starts with `prefix`, across all tiers, sorted by the keys' UTF-8 bytes (the
    /// order of `sort` under the C locale). A prefix is a plain string prefix, the rule of every API and `strata` verb
    /// that takes one: `photos` matches `photos-old/a` as well as `photos/a`; `photos/` matches the folder. Keys written through a tier's own API are included; a catalogued key
    /// whose tier does not hold it is not (its entry is repaired).
    /// - Throws: ``/StrataCore/StorageError`` from a tier's listing; a locked secrets tier is skipped (its
    ///   catalogued keys are listed unchecked).
    public func keys(prefix: String = "") throws -> [String] {
        var keys = Set<ExactString>()
        var listed: [Tier: Set<ExactString>] = [:]
        for tier in Tier.allCases where registry.hasBackend(for: tier) {
            do {
                var held = Set<ExactString>()
                for key in try registry.backend(for: tier).keys() where key.utf8.starts(with: prefix.utf8) {
                    held.insert(ExactString(key))
                }
                keys.formUnion(held)
                listed[tier] = held
            } catch let error as StorageError where error.code == .locked {
                continue
            }
        }
        for location in try catalog.locations(prefix: prefix) {
            let key = ExactString(location.key)
            if let held = listed[location.tier], !held.contains(key), try repairIfStale(location.key) != nil {
                continue
            }
            keys.insert(key)
        }
        return keys.sorted().map(\.string)
    }

    /// Looks for an uncatalogued `key` in every tier (the caller holds the key's lock). Found in exactly one, it
    /// is recorded there (rule `found`) and returned; in none, `nil`.
    /// - Throws: `.conflict` when several tiers hold a copy: nothing says which is current.
    package func adopt(_ key: String) throws -> (value: Data, location: StorageLocation)? {
        var copies: [(tier: Tier, backend: any StorageBackend, value: Data)] = []
        for tier in Tier.allCases where registry.hasBackend(for: tier) {
            let backend: any StorageBackend
            do {
                backend = try registry.backend(for: tier)
                if let value = try backend.data(for: key) { copies.append((tier, backend, value)) }
            } catch let error as StorageError where error.code == .locked || error.code == .noBackend {
                continue
            }
        }
        guard let copy = copies.first else { return nil }
        guard copies.count == 1 else {
            var error = StorageError(
                .conflict, "the key has copies in \(copies.count) tiers and the catalog records none of them",
                key: key,
                recovery: "Delete the key (every copy goes) and put it again, or delete the stale copy through its "
                    + "tier's own API")
            error.operation = "find " + copies.map(\.tier.rawValue).joined(separator: ", ")
            throw error
        }
        let metadata = try? copy.backend.metadata(for: key)
        let location = StorageLocation(
            key: key, tier: copy.tier, backend: copy.backend.name, ruleID: "found", kind: nil,
            contentType: metadata?.contentType, size: copy.value.count, modified: metadata?.modificationDate ?? Date())
        try catalog.record([.set(location)], durable: false)
        return (copy.value, location)
    }

    /// Repairs the entry `location` of a key its tier does not hold (the caller holds the key's lock and has just
    /// seen the tier without it): removes the entry, records the key where a copy is found, and keeps the repair for
    /// ``verifyCatalog()``.
    /// - Returns: The copy found and where, or `nil` when no tier holds the key.
    /// - Throws: `.conflict` when several tiers hold a copy (the entry is removed all the same), or a tier's error.
    func repair(_ location: StorageLocation) throws -> (value: Data, location: StorageLocation)? {
        try catalog.record([.remove(key: location.key)], durable: false)
        let found: (value: Data, location: StorageLocation)?
        do {
            found = try adopt(location.key)
        } catch {
            repairedEntries.withLock { $0.append(RepairedEntry(key: location.key, tier: location.tier, foundIn: nil)) }
            throw error
        }
        repairedEntries.withLock {
            $0.append(RepairedEntry(key: location.key, tier: location.tier, foundIn: found?.location.tier))
        }
        return found
    }

    /// Repairs the entry of `key` if, under the key's lock, its tier still does not hold the key: what a listing
    /// that did not show the key (or a capture ahead of its instant) suspected.
    /// - Returns: The repair, or `nil` when the entry was sound after all (the key was written meanwhile).
    @discardableResult
    func repairIfStale(_ key: String) throws -> RepairedEntry? {
        try catalog.withKeyLock(key) {
            guard let location = try catalog.location(of: key),
                try !backend(for: location.tier, key: key).contains(key)
            else { return nil }
            let found = (try? repair(location)) ?? nil
            return RepairedEntry(key: key, tier: location.tier, foundIn: found?.location.tier)
        }
    }
}

import StrataCore
import StrataSystem

extension SecretStore {
    /// The attributes of every item of a service (or of every service), never their values, sorted by service and
    /// account. Services compare by their exact Unicode scalars.
    ///
    /// Reading attributes decrypts each item, so items whose class key is not in memory (a locked store's
    /// `whenUnlocked` items) are skipped, and so are `...ThisDeviceOnly` items sealed on another machine (see
    /// ``listing(service:)``, which reports them); every other failure throws.
    public func items(service: String? = nil) throws -> [SecretItem] {
        try listing(service: service).items
    }

    /// The readable items of a service (or of every service), and every `...ThisDeviceOnly` item of another machine
    /// that was left out (of any service: those sealed by an earlier version cannot be attributed to one).
    /// - Throws: ``/StrataCore/StorageError`` `.locked` before the first unlock, `.corrupt` for a damaged or swapped
    ///   item, or an I/O error.
    public func listing(service: String? = nil) throws -> SecretListing {
        let (found, skipped) = try allItems(values: false)
        let wanted = service.map { ExactString($0) }
        let items = found.map(\.0).filter { wanted == nil || ExactString($0.service) == wanted }
            .sorted { left, right in
                (ExactString(left.service), ExactString(left.account))
                    < (ExactString(right.service), ExactString(right.account))
            }
        return SecretListing(items: items, otherDeviceItems: skipped)
    }

    /// Deletes every item of a service, including its `...ThisDeviceOnly` items sealed on another machine (which
    /// can never be read here).
    ///
    /// Such an item sealed by an earlier version bound the machine into its attributes too: its service cannot be
    /// known here, so it is left in place, and ``listing(service:)`` keeps reporting it.
    /// - Returns: How many were deleted.
    @discardableResult
    public func deleteAll(service: String) throws -> Int {
        let listing = try listing(service: service)
        var deleted = 0
        for item in listing.items where try delete(service: item.service, account: item.account) {
            deleted += 1
        }
        let wanted = ExactString(service)
        let folder = try keyringFolder()
        try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
            _ = try currentManifest(in: folder)  // As `delete`: nothing removed that cannot be recorded.
            var removed: [String] = []
            for skipped in listing.otherDeviceItems where skipped.item.map({ ExactString($0.service) }) == wanted {
                if try removeItemFile(skipped.fileName, in: folder) { removed.append(skipped.fileName) }
            }
            try recordDeletions(removed, in: folder)
            deleted += removed.count
        }
        return deleted
    }

    /// Every readable item, with its value when asked, and the items of another machine left out.
    /// `whenUnlocked` items are skipped while locked. An item under the first format's name (an identity with a
    /// NUL) counts once, even when a crash left it under both names.
    func allItems(values: Bool) throws -> (found: [(SecretItem, Secret?)], skipped: [SecretListing.Skipped]) {
        _ = try fileName(ItemIdentity(service: "-", account: "-"))  // Throws `.locked` before the first unlock.
        let folder = try keyringFolder()
        // The manifest first, as for one item: the items it holds, then every item file (a file of an item the
        // manifest holds is read from the manifest, once), then the manifest again. A writer moves an item into the
        // manifest before it removes its file, and writes its file before it moves it out: when the manifest did
        // not change across the listing, every item is in one of the two; otherwise the listing is taken again.
        var manifest = try currentManifest(in: folder).manifest
        var present: Set<String>
        while true {
            present = Set(manifest.entries.compactMap { $0.value.inline == nil ? nil : $0.key })
            do throws(Errno) {
                present.formUnion(try folder.entries().filter { $0.hasSuffix(Self.itemSuffix) })
            } catch {
                throw error.storageError("cannot list the keyring folder", tier: .secrets, path: directory)
            }
            let again = try currentManifest(in: folder).manifest
            if again == manifest { break }
            manifest = again
        }
        let names = Array(present)
        var found: [(SecretItem, Secret?)] = []
        var skipped: [SecretListing.Skipped] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            do {
                guard let (record, accessibility, secret) = try readItem(in: folder, fileName: name, value: values)
                else {
                    continue
                }
                if accessibility.isThisDeviceOnly, !values {
                    // The machine is bound into the value only: open it to know the item is this machine's.
                    _ = try readItem(in: folder, fileName: name, value: true)
                }
                let identity = ItemIdentity(record)
                let current = try fileName(identity)
                if current != name {
                    guard try legacyFileName(identity) == name else {
                        throw StorageError(
                            .corrupt, "the item holds another service or account than its name", tier: .secrets,
                            path: path)
                    }
                    if present.contains(current) { continue }  // Already stored under its name.
                }
                found.append((SecretItem(record, accessibility: accessibility), secret))
            } catch let error as StorageError where error.code == .locked {
                continue
            } catch let error as StorageError where error.code == .deviceMismatch {
                // Its attributes still open when it was sealed by this version (the machine is in the value only).
                let opened = try? readItem(in: folder, fileName: name, value: false)
                skipped.append(
                    SecretListing.Skipped(
                        path: path, fileName: name, item: opened.map { SecretItem($0.0, accessibility: $0.1) },
                        error: error))
            }
        }
        return (found, skipped)
    }
}

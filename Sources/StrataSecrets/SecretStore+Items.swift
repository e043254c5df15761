import Foundation
import StrataCore
import StrataSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SecretStore {
    package static let itemSuffix = ".item"

    /// Stores a secret, replacing any item with the same service and account atomically.
    /// - Parameters:
    ///   - value: The secret.
    ///   - service: The service, such as `api.example.com`.
    ///   - account: The account within it.
    ///   - label: A label for people. The default keeps the existing item's label, or is empty.
    ///   - accessibility: When it can be read. The default is ``SecretAccessibility/whenUnlocked``.
    /// - Throws: ``/StrataCore/StorageError``: `.locked` when the class key is not in memory, `.tooLarge` over the
    ///   value limit or over an attribute's limit (``SecretItem/attributeLimit``; the error's `attribute` names it),
    ///   `.invalidArgument` for an empty service or account, or a write error (the previous item stays).
    public func set(
        _ value: Secret, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) throws {
        let identity = try ItemIdentity.checked(service: service, account: account)
        if let label { try identity.checkAttribute("label", label) }
        let keyringID = try classKey(accessibility, writing: true).0
        let fileName = try self.fileName(identity)
        let folder = try keyringFolder()
        // The key's catalog lock first, then the keyring's: the order of every change that goes through the catalog.
        // Exclusive: the manifest is read, changed and written back after the item.
        try reportingChange(setting: [identity]) {
            try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
                // Read once: no other writer changes it while the lock is held.
                let manifest = try currentManifest(in: folder)
                // Keep the creation date (and label) of an item being replaced, when its attributes can be read.
                let existing = try? locate(identity, in: folder, value: false, manifest: manifest.manifest)
                try store(
                    value, identity: identity, label: label, replacing: existing, accessibility: accessibility,
                    keyringID: keyringID, fileName: fileName, in: folder, manifest: manifest)
            }
        }
    }

    /// Reads, transforms and writes one item atomically across processes: no other writer of the keyring can
    /// slip in between (the keyring's lock is held exclusively throughout).
    /// - Parameters:
    ///   - service: The service, such as `api.example.com`.
    ///   - account: The account within it.
    ///   - accessibility: When it can be read. The default is ``SecretAccessibility/whenUnlocked``.
    ///   - transform: Gets the current value (`nil` when absent) and returns the new one.
    /// - Returns: The value written.
    /// - Throws: What ``set(_:service:account:label:accessibility:)-(Secret,_,_,_,_)`` throws, what reading the current
    ///   item throws, or what `transform` throws (nothing is written then).
    @discardableResult
    public func update(
        service: String, account: String, accessibility: SecretAccessibility = .whenUnlocked,
        _ transform: (Secret?) throws -> Secret
    ) throws -> Secret {
        let identity = try ItemIdentity.checked(service: service, account: account)
        let keyringID = try classKey(accessibility, writing: true).0
        let fileName = try self.fileName(identity)
        let folder = try keyringFolder()
        return try reportingChange(setting: [identity]) {
            try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
                let existing = try locate(identity, in: folder, value: true)
                let value = try transform(existing?.secret)
                try store(
                    value, identity: identity, label: nil, replacing: existing, accessibility: accessibility,
                    keyringID: keyringID, fileName: fileName, in: folder)
                return value
            }
        }
    }

    /// Stores a string secret. See ``set(_:service:account:label:accessibility:)-(Secret,_,_,_,_)``.
    public func set(
        _ value: String, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) throws {
        try set(Secret(value), service: service, account: account, label: label, accessibility: accessibility)
    }

    /// The secret stored for a service and account.
    /// - Returns: The value, or `nil` only when there is no such item.
    /// - Throws: ``/StrataCore/StorageError``: `.locked` (the item's class key is not in memory, or another process
    ///   rotated the keyring's key since this one unlocked), `.corrupt` (edited, truncated or swapped file),
    ///   `.rolledBack` (an older copy of the item put back over the current one), `.deviceMismatch` (a `ThisDeviceOnly`
    ///   item from another machine), `.unsupportedVersion`, or an I/O error. Never `nil` for any of these.
    public func get(service: String, account: String) throws -> Secret? {
        try locate(ItemIdentity.checked(service: service, account: account), in: keyringFolder(), value: true)?.secret
    }

    /// The attributes of an item, without its value, or `nil` when there is none.
    public func attributes(service: String, account: String) throws -> SecretItem? {
        try item(service: service, account: account, value: false).map(\.0)
    }

    /// Whether an item exists. Needs no class key, only the name key (available after the first unlock) — except
    /// for an item whose service or account holds a NUL and that was stored under the first format's name.
    public func contains(service: String, account: String) throws -> Bool {
        let identity = try ItemIdentity.checked(service: service, account: account)
        let fileName = try self.fileName(identity)
        let folder = try keyringFolder()
        // The manifest, then the file, then the manifest again: no item is missed while it moves between them (see
        // ``sealedItem(_:in:manifest:mayReread:whole:)``).
        var manifest = try currentManifest(in: folder).manifest
        while true {
            if manifest.inlineItem(fileName) != nil { return true }
            do throws(Errno) {
                if try folder.status(of: fileName) != nil { return true }
            } catch {
                throw error.storageError("cannot inspect the item", tier: .secrets, path: directory + "/" + fileName)
            }
            let again = try currentManifest(in: folder).manifest
            if again == manifest { break }
            manifest = again
        }
        return try identity.legacyNameMessage != nil && locate(identity, in: folder, value: false) != nil
    }

    /// Deletes an item.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(service: String, account: String) throws -> Bool {
        let identity = try ItemIdentity.checked(service: service, account: account)
        let name = try fileName(identity)
        let folder = try keyringFolder()
        return try reportingChange(removing: [identity]) {
            try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
                // The manifest first: a process whose key was rotated away deletes nothing it cannot record.
                let manifest = try currentManifest(in: folder).manifest
                if manifest.inlineItem(name) != nil {
                    // The item lives in the manifest: its tombstone is its deletion, one replacement of the manifest;
                    // a file of its name (a leftover) goes after, and reads as deleted if a crash leaves it.
                    try recordDeletions([name], in: folder)
                    _ = try unlinkItemFile(name, in: folder)
                    return true
                }
                var removed: [String] = []
                if try removeItemFile(name, in: folder) { removed.append(name) }
                if identity.legacyNameMessage != nil, let legacy = try locate(identity, in: folder, value: false),
                    try removeItemFile(legacy.fileName, in: folder)
                {
                    removed.append(legacy.fileName)
                }
                try recordDeletions(removed, in: folder)
                return !removed.isEmpty
            }
        }
    }

    /// Checks the keyring's files without a key: `keyring.json` parses and is canonical, the manifest's entries
    /// parse, every item file and every item inside the manifest has a valid header. (Authenticity needs the key:
    /// ``get(service:account:)`` checks it for each item.)
    /// - Returns: The problems found, each naming its file; empty when all is well.
    public func structuralProblems() -> [String] {
        var problems: [String] = []
        var keyringFile: KeyringFile?
        do {
            keyringFile = try readKeyring()
            if keyringFile == nil { problems.append("\(keyringPath): missing") }
        } catch {
            problems.append("\(error)")
        }
        // What cannot be read is a problem too: a check that skipped it would call the keyring sound.
        let folder: DirectoryHandle?
        var manifest: Data?
        let names: [String]
        do {
            folder = try existingKeyringFolder()
        } catch {
            return problems + ["\(error)"]
        }
        do {
            manifest = try folder.flatMap {
                try AtomicFile.read(in: $0, name: ItemManifest.fileName, maximumSize: 64 << 20)
            }
        } catch {
            problems.append("\(error)")
        }
        if let manifest {
            // An older manifest put back (see ManifestAnchor): its sequence number, read without the key, is below
            // the anchor's.
            var anchorData: Data?
            do {
                anchorData = try folder.flatMap {
                    try AtomicFile.read(in: $0, name: ManifestAnchor.fileName, maximumSize: 4096)
                }
            } catch {
                problems.append("\(error)")
            }
            if let id = keyringFile?.id, let header = ItemManifest.unauthenticatedHeader(manifest), let anchorData,
                let anchor = ManifestAnchor.parse(anchorData, keyringID: id), header.sequence < anchor.sequence
            {
                problems.append(
                    "\(manifestPath): rolled back: write \(header.sequence) of the manifest, where "
                        + "\(anchor.sequence) was made durable (an earlier copy was put back)")
            }
            if let inline = ItemManifest.unauthenticatedInlineItems(manifest) {
                for (name, item) in inline.sorted(by: { $0.key < $1.key }) {
                    do {
                        _ = try ItemEnvelope.header(of: item, path: manifestPath + " (" + name + ")")
                    } catch {
                        problems.append("\(error)")
                    }
                }
            } else {
                problems.append("\(manifestPath): not an item manifest this program reads")
            }
        }
        do {
            names = try folder?.entries(of: .secrets) ?? []
        } catch {
            return problems + ["\(error)"]
        }
        for name in names.sorted() where name.hasSuffix(Self.itemSuffix) {
            let path = directory + "/" + name
            do {
                guard let folder,
                    let file = try AtomicFile.read(
                        in: folder, name: name, maximumSize: configuration.valueLimit + (64 << 10))
                else {
                    continue
                }
                _ = try ItemEnvelope.header(of: file, path: path)
            } catch {
                problems.append("\(error)")
            }
        }
        return problems
    }

    /// How many items the keyring holds: its item files and the items its manifest holds (no key needed: the
    /// manifest's entries are counted without authenticating it).
    public var itemCount: Int { itemNamesWithoutKey().count }

    /// The names of the keyring's items read without a key: its item files and the items its manifest holds
    /// (see ``ItemManifest/unauthenticatedInlineItems(_:keyringIDSize:)``), each once.
    func itemNamesWithoutKey() -> [String] {
        guard let folder = try? existingKeyringFolder() else { return [] }
        func manifest() -> Data? {
            try? AtomicFile.read(in: folder, name: ItemManifest.fileName, maximumSize: 64 << 20)
        }
        // The manifest's bytes before and after the listing: an item moving between a file and the manifest meanwhile
        // is in one of them only when the manifest did not change (see ``allItems(values:)``).
        var before = manifest()
        while true {
            var names = Set(((try? folder.entries()) ?? []).filter { $0.hasSuffix(Self.itemSuffix) })
            let after = manifest()
            guard after == before else {
                before = after
                continue
            }
            if let after, let inline = ItemManifest.unauthenticatedInlineItems(after) { names.formUnion(inline.keys) }
            return names.sorted()
        }
    }

    // MARK: Internals

    /// The item file name: a keyed hash of ``ItemIdentity/nameMessage`` under the keyring's name key.
    func fileName(_ identity: ItemIdentity) throws -> String {
        let (cached, key) = keyMaterial.withLock { ($0.fileNames[identity], $0.names) }
        if let cached { return cached }
        guard let key else { throw notUnlocked() }
        let name = try identity.fileName(key: key)
        keyMaterial.withLock { keys in
            if keys.fileNames.count >= 10_000 { keys.fileNames.removeAll(keepingCapacity: true) }
            keys.fileNames[identity] = name
        }
        return name
    }

    /// The file name the first format gave the identity, when it differs from ``fileName(_:)``.
    func legacyFileName(_ identity: ItemIdentity) throws -> String? {
        guard let message = identity.legacyNameMessage else { return nil }
        guard let names = keyMaterial.withLock({ $0.names }) else { throw notUnlocked() }
        return try ItemIdentity.fileName(hashing: message, key: names)
    }

    func classKey(_ accessibility: SecretAccessibility, writing: Bool) throws -> ([UInt8], GuardedKey) {
        let (id, key) = keyMaterial.withLock { keys in (keys.keyringID, keys.current?.classKey(accessibility)) }
        let needing = "\(writing ? "storing" : "reading") a \(accessibility.rawValue) item"
        guard let id, let key else { throw notUnlocked(needing) }
        guard !key.isWiped else {
            throw StorageError(
                .locked,
                needing + " needs the store unlocked", tier: .secrets, path: directory,
                recovery: "Call unlock(with:) first")
        }
        return (id, key)
    }

    func item(service: String, account: String, value: Bool) throws -> (SecretItem, Secret?)? {
        let identity = try ItemIdentity.checked(service: service, account: account)
        guard let found = try locate(identity, in: keyringFolder(), value: value) else { return nil }
        return (SecretItem(found.record, accessibility: found.accessibility), found.secret)
    }

    /// Finds and opens an item: under its file name, or — for an identity with a NUL — under the name the first
    /// format gave it, when the item there is this one (that name may hold the other identity of a collision).
    /// - Parameter manifest: The manifest to check the item against, when the caller holds the keyring's lock and
    ///   read it under the lock (no other writer can change it then); by default the current one is read.
    /// - Returns: `nil` when there is no such item.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` when the file under the item's name holds another identity, or
    ///   what opening it throws.
    func locate(_ identity: ItemIdentity, in folder: DirectoryHandle, value: Bool, manifest: ItemManifest? = nil)
        throws -> (fileName: String, record: ItemEnvelope.Record, accessibility: SecretAccessibility, secret: Secret?)?
    {
        let name = try fileName(identity)
        if let (record, accessibility, secret) = try readItem(
            in: folder, fileName: name, value: value, manifest: manifest)
        {
            guard ItemIdentity(record) == identity else {
                throw StorageError(
                    .corrupt, "the item holds another service or account than its name", tier: .secrets,
                    path: folder.path(of: name))
            }
            return (name, record, accessibility, secret)
        }
        guard let legacy = try legacyFileName(identity),
            let (record, accessibility, secret) = try readItem(
                in: folder, fileName: legacy, value: value, manifest: manifest),
            ItemIdentity(record) == identity
        else { return nil }
        return (legacy, record, accessibility, secret)
    }

    /// Reads and opens one item file, or `nil` when it does not exist.
    ///
    /// Without a manifest read under the keyring's lock, the reader takes no lock, and concludes nothing from two
    /// reads that a writer or a rotation in another process may have separated: an item that is nowhere, or that
    /// opens under no key at hand, is looked for again whenever the manifest changed meanwhile (see
    /// ``sealedItem(_:in:manifest:mayReread:whole:)``). Absence and damage are reported only when the manifest
    /// read after the item is the one read before it: one consistent view.
    /// - Parameter known: The manifest read under the keyring's lock, which the caller holds (see
    ///   ``locate(_:in:value:manifest:)``); by default the current one is read.
    func readItem(in folder: DirectoryHandle, fileName: String, value: Bool, manifest known: ItemManifest? = nil)
        throws -> (ItemEnvelope.Record, SecretAccessibility, Secret?)?
    {
        // The manifest before the item (see ``currentManifest(in:)``).
        var manifest = try known ?? currentManifest(in: folder).manifest
        while true {
            do {
                return try readItem(in: folder, fileName: fileName, value: value, under: manifest, locked: known != nil)
            } catch let error as StorageError
                where known == nil && (error.code == .corrupt || error.code == .deviceMismatch)
            {
                // Sealed under a key this process does not hold: a rotation in another process may have re-sealed
                // it and finished (removing `rotation.key`) since the manifest was read. The manifest tells: it
                // changed then, and reading it again reports the rotation (`locked`) or leads to the item.
                let again = try currentManifest(in: folder).manifest
                guard again != manifest else { throw error }
                manifest = again
            }
        }
    }

    /// ``readItem(in:fileName:value:manifest:)`` against one manifest.
    /// - Parameter locked: Whether `manifest` was read under the keyring's lock, which the caller holds.
    private func readItem(
        in folder: DirectoryHandle, fileName: String, value: Bool, under manifest: ItemManifest, locked: Bool
    ) throws -> (ItemEnvelope.Record, SecretAccessibility, Secret?)? {
        // The path only for errors: a warm read does not build it.
        func path() -> String { folder.path(of: fileName) }
        guard
            let (file, size, stamp, kept, manifest) = try sealedItem(
                fileName, in: folder, manifest: manifest, mayReread: !locked, whole: value)
        else { return nil }
        let (accessibility, version) = try ItemEnvelope.header(of: file, path: path())
        let (keyringID, key) = try classKey(accessibility, writing: false)
        func open(with key: GuardedKey, attributes: ItemEnvelope.Record? = nil) throws -> (ItemEnvelope.Record, Secret?)
        {
            try ItemEnvelope.open(
                file, size: size, accessibility: accessibility, version: version, keyringID: keyringID,
                fileName: fileName,
                key: key, path: path(), value: value, attributes: attributes)
        }
        let record: ItemEnvelope.Record
        let secret: Secret?
        do {
            // Bytes kept are those whose attributes opened to the record kept with them, under its key.
            let known =
                kept.flatMap { $0.key === key ? $0.record : nil }
                ?? knownAttributes(of: file, fileName: fileName, key: key)
            (record, secret) = try open(with: key, attributes: known)
            if kept == nil, known == nil || stamp != nil {
                rememberAttributes(known ?? record, of: file, fileName: fileName, key: key, stamp: stamp)
            }
        } catch let error as StorageError where error.code == .corrupt || error.code == .deviceMismatch {
            // During a rotation an item may be sealed under the other data key already.
            guard let other = try nextKeys(in: folder)?.classKey(accessibility), !other.isWiped,
                let opened = try? open(with: other)
            else { throw error }
            (record, secret) = opened
        }
        try checkNotRolledBack(record, fileName: fileName, in: manifest, path: path())
        return (record, accessibility, secret)
    }

    /// The sealed bytes of an item: from its manifest entry when it lives there (a file of its name is then a
    /// leftover, never read), else from its file (see ``itemFile(_:in:)``).
    ///
    /// A writer moves an item into the manifest by replacing the manifest before it removes the file, and out of it
    /// by writing the file before it replaces the manifest. So when a reader that read `manifest` without the lock
    /// finds neither, the item moved meanwhile or is absent: it reads the manifest again, and concludes absence only
    /// when that is the manifest it looked in (nothing moved between the two reads); otherwise it looks again in
    /// the new one. Every manifest a writer makes differs from the last (an entry's generation moves on), so a
    /// reader loops only while writers keep moving the item under it.
    /// - Parameter mayReread: Whether `manifest` was read without the keyring's lock (with it, nothing moves).
    ///   - whole: Whether the value is wanted: otherwise an item file may be read only up to the end of its
    ///     sealed attributes (see ``itemFile(_:in:whole:)``).
    /// - Returns: The bytes, the whole file's size when they are only its first bytes, their stamp and what is
    ///   kept of them (see ``itemFile(_:in:whole:)``), and the manifest that vouches for them; `nil` when there is
    ///   no such item.
    func sealedItem(
        _ fileName: String, in folder: DirectoryHandle, manifest: ItemManifest, mayReread: Bool, whole: Bool = true
    ) throws -> (file: Data, size: Int?, stamp: FileStamp?, kept: OpenedItem?, manifest: ItemManifest)? {
        var manifest = manifest
        while true {
            if let inline = manifest.inlineItem(fileName) { return (inline, nil, nil, nil, manifest) }
            if let found = try itemFile(fileName, in: folder, whole: whole) {
                return (found.file, found.size, found.stamp, found.kept, manifest)
            }
            guard mayReread else { return nil }
            let again = try currentManifest(in: folder).manifest
            if again == manifest { return nil }
            manifest = again
        }
    }

    /// How many sealed boxes this process tried to open so far (an item holds two: its attributes and its
    /// value), for tests that count what a read costs.
    package static var boxesOpened: Int { Sodium.boxesOpened.load(ordering: .relaxed) }

    /// How long an item file must stay unchanged before a store reads its stamp instead of its bytes (see
    /// ``FileStamp``), for benchmarks and tests that read settled items.
    package static var settlingTime: Double { FileStamp.settlingTime }

    /// The bytes of an item file, or `nil` when there is none: those this store keeps, when the file's settled
    /// stamp is unchanged (one `fstatat`: see ``OpenedItem``), else read from the file — only its first bytes, up
    /// to the end of its sealed attributes, when `whole` is `false` and the file is larger than
    /// ``OpenedItem/wholeFileLimit`` (a replacement or a listing needs the attributes, never a large value).
    /// - Returns: The bytes, the whole file's size when they are only its first bytes, the file's stamp when it
    ///   was settled before they were read and they are the whole file (to keep them under), and what is kept with
    ///   them when they are those kept.
    func itemFile(_ fileName: String, in folder: DirectoryHandle, whole: Bool = true) throws -> (
        file: Data, size: Int?, stamp: FileStamp?, kept: OpenedItem?
    )? {
        let kept = keyMaterial.withLock { keys in keys.openedItems[fileName] }
        if let kept, let stamp = kept.stamp {
            let status: stat?
            do throws(Errno) {
                status = try folder.status(of: fileName)
            } catch {
                throw error.storageError("cannot inspect the item", tier: .secrets, path: folder.path(of: fileName))
            }
            guard let status else { return nil }
            if FileStamp(status) == stamp { return (kept.sealed, nil, stamp, kept) }
        }
        let readStart = Date().timeIntervalSince1970
        if !whole { return try itemFilePrefix(fileName, in: folder, readStart: readStart) }
        // Item files are only ever replaced by rename, never appended to: read exactly what fstat reports.
        guard
            let (file, status) = try AtomicFile.readWithStatus(
                in: folder, name: fileName, maximumSize: configuration.valueLimit + (64 << 10), followGrowth: false)
        else { return nil }
        itemBytesRead.add(file.count, ordering: .relaxed)
        let stamp = FileStamp(status)
        return (file, nil, stamp.isSettled(readStart: readStart) ? stamp : nil, nil)
    }

    /// ``itemFile(_:in:whole:)`` for the attributes only: one `pread` of the file's first bytes (a second one when
    /// its attributes run past them), never its value; the whole file when it is that small.
    private func itemFilePrefix(_ fileName: String, in folder: DirectoryHandle, readStart: Double) throws -> (
        file: Data, size: Int?, stamp: FileStamp?, kept: OpenedItem?
    )? {
        func failure(_ error: Errno, _ what: String) -> StorageError {
            error.storageError("cannot \(what) the item", tier: .secrets, path: folder.path(of: fileName))
        }
        let (fd, status): (FileDescriptor, stat)
        do throws(Errno) {
            (fd, status) = try folder.openRegularFile(fileName)
        } catch  where error.code == ENOENT {
            return nil
        } catch  where error.code == ENXIO {
            // A FIFO, socket, device or folder in the item's place: damage, refused and never waited on.
            throw StorageError(
                .corrupt, "the item's file is not a regular file (a FIFO, socket, device or folder)", tier: .secrets,
                path: folder.path(of: fileName), recovery: "Put the keyring's file back from a backup")
        } catch {
            throw failure(error, "open")
        }
        defer { Sys.close(fd) }
        // Item files are only ever replaced by rename, never changed in place: this descriptor's file keeps the
        // size fstat reports.
        let size = Int(status.st_size)
        var file = Data(count: min(size, OpenedItem.wholeFileLimit))
        func fill(from start: Int) throws {
            var filled = start
            var failed: Errno?
            file.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
                while filled < bytes.count {
                    do throws(Errno) {
                        let got = try Sys.pread(
                            fd, UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]), at: Int64(filled))
                        if got == 0 { break }
                        filled += got
                    } catch {
                        failed = error
                        return
                    }
                }
            }
            if let failed { throw failure(failed, "read") }
            itemBytesRead.add(filled - start, ordering: .relaxed)
            if filled < file.count { file.count = filled }
        }
        try fill(from: 0)
        if file.count == size {
            let stamp = FileStamp(status)
            return (file, nil, stamp.isSettled(readStart: readStart) ? stamp : nil, nil)
        }
        // Attributes longer than the first read (up to the limits of three attributes): read on to their end.
        let lengthStart = ItemEnvelope.headerSize + Sodium.nonceBytes
        if ItemEnvelope.attributesEnd(of: file) == nil, file.count >= lengthStart + 4 {
            let length = file[lengthStart..<(lengthStart + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = min(lengthStart + 4 + length, size)
            let start = file.count
            file.count = end
            try fill(from: start)
        }
        return (file, size, nil, nil)
    }

    /// What the attributes of `file` opened to before, when its bytes up to the end of its sealed attributes are
    /// those that opened under `key` as `fileName` (the keyring's id is this unlock's: the memory is cleared by
    /// every unlock). `nil` otherwise: the attributes box is then opened.
    func knownAttributes(of file: Data, fileName: String, key: GuardedKey) -> ItemEnvelope.Record? {
        file.withUnsafeBytes { bytes in
            guard let end = ItemEnvelope.attributesEnd(of: bytes) else { return nil }
            // Compared where they are kept: only the record leaves the lock, and only when the bytes match.
            return keyMaterial.withLock { keys -> ItemEnvelope.Record? in
                guard let opened = keys.openedItems[fileName], opened.key === key, opened.sealed.count >= end,
                    opened.sealed.withUnsafeBytes({ memcmp(bytes.baseAddress!, $0.baseAddress!, end) == 0 }),
                    ItemEnvelope.attributesEnd(of: opened.sealed) == end
                else { return nil }
                return opened.record
            }
        }
    }

    /// Remembers what the attributes of `file` opened to under `key`, or were sealed from, and the file whole
    /// with its settled `stamp` (see ``OpenedItem``, ``knownAttributes(of:fileName:key:)``).
    func rememberAttributes(
        _ record: ItemEnvelope.Record, of file: Data, fileName: String, key: GuardedKey, stamp: FileStamp? = nil
    ) {
        guard let opened = OpenedItem(file, key: key, record: record, stamp: stamp) else { return }
        keyMaterial.withLock { keys in
            if keys.openedItems.count >= 10_000 { keys.openedItems.removeAll(keepingCapacity: true) }
            keys.openedItems[fileName] = opened
        }
    }

    /// Records deleted item files in the manifest as tombstones, after they are gone (a crash before leaves the
    /// old entry, which a missing file never trips). The caller holds the keyring's lock exclusively.
    func recordDeletions(_ fileNames: [String], in folder: DirectoryHandle) throws {
        guard !fileNames.isEmpty else { return }
        let now = Date()
        try advanceManifest(in: folder) { manifest, _ in
            for name in fileNames { manifest.entries[name] = manifest.tombstone(name, now: now) }
        }
    }

    /// Unlinks one item file and flushes the folder.
    /// - Returns: Whether it existed.
    func removeItemFile(_ name: String, in folder: DirectoryHandle) throws -> Bool {
        guard try unlinkItemFile(name, in: folder) else { return false }
        try folder.sync()
        return true
    }

    /// Unlinks one item file, without flushing the folder.
    /// - Returns: Whether it existed.
    func unlinkItemFile(_ name: String, in folder: DirectoryHandle) throws -> Bool {
        do throws(Errno) {
            try folder.unlink(name)
        } catch  where error.code == ENOENT {
            return false
        } catch {
            throw error.storageError("cannot delete the item", tier: .secrets, path: folder.path(of: name))
        }
        return true
    }
}

extension SecretItem {
    package init(_ record: ItemEnvelope.Record, accessibility: SecretAccessibility) {
        self.init(
            service: record.service, account: record.account, label: record.label, accessibility: accessibility,
            creationDate: record.created, modificationDate: record.modified, valueSize: record.valueSize)
    }
}

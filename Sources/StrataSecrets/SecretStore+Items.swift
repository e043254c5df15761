import Foundation
import StrataCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SecretStore {
    static let itemSuffix = ".item"

    /// Stores a secret, replacing any item with the same service and account atomically.
    /// - Parameters:
    ///   - value: The secret.
    ///   - service: The service, such as `api.example.com`.
    ///   - account: The account within it.
    ///   - label: A label for people. The default keeps the existing item's label, or is empty.
    ///   - accessibility: When it can be read. The default is ``SecretAccessibility/whenUnlocked``.
    /// - Throws: ``StorageError``: `.locked` when the class key is not in memory, `.tooLarge` over the value
    ///   limit, `.invalidArgument` for an empty service or account, or a write error (the previous item stays).
    public func set(
        _ value: Secret, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) throws {
        try checkIdentity(service: service, account: account)
        guard value.count <= configuration.valueLimit else {
            throw StorageError(
                .tooLarge, "a secret of \(value.count) bytes is over the limit of \(configuration.valueLimit)",
                tier: .secrets, key: service + "/" + account,
                recovery: "Encrypt large data in the files tier and keep only its key here", suggestedTier: .files)
        }
        let (keyringID, key, fileName) = try keysFor(accessibility, service: service, account: account, writing: true)
        let folder = try keyringFolder()
        try keyringLock(in: folder).withLock(.shared, timeout: configuration.lockTimeout) {
            // Keep the creation date (and label) of an item being replaced, when its attributes can be read.
            let existing = try? readItem(in: folder, fileName: fileName, value: false)
            let now = Date()
            let record = ItemEnvelope.Record(
                service: service, account: account, label: label ?? existing?.0.label ?? "",
                created: existing?.0.created ?? now, modified: now, valueSize: value.count)
            let file = try value.withUnsafeBytes {
                try ItemEnvelope.seal(
                    record, value: $0, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key)
            }
            try AtomicFile.write(file, in: folder, name: fileName)
        }
    }

    /// Reads, transforms and writes one item atomically across processes: no other writer of the keyring can
    /// slip in between (the keyring's lock is held exclusively throughout).
    /// - Parameters:
    ///   - transform: Gets the current value (`nil` when absent) and returns the new one.
    /// - Returns: The value written.
    @discardableResult
    public func update(
        service: String, account: String, accessibility: SecretAccessibility = .whenUnlocked,
        _ transform: (Secret?) throws -> Secret
    ) throws -> Secret {
        try checkIdentity(service: service, account: account)
        let (keyringID, key, fileName) = try keysFor(accessibility, service: service, account: account, writing: true)
        let folder = try keyringFolder()
        return try keyringLock(in: folder).withLock(.exclusive, timeout: configuration.lockTimeout) {
            let existing = try readItem(in: folder, fileName: fileName, value: true)
            let value = try transform(existing?.2)
            guard value.count <= configuration.valueLimit else {
                throw StorageError(
                    .tooLarge, "a secret of \(value.count) bytes is over the limit of \(configuration.valueLimit)",
                    tier: .secrets)
            }
            let now = Date()
            let record = ItemEnvelope.Record(
                service: service, account: account, label: existing?.0.label ?? "", created: existing?.0.created ?? now,
                modified: now, valueSize: value.count)
            let file = try value.withUnsafeBytes {
                try ItemEnvelope.seal(
                    record, value: $0, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key)
            }
            try AtomicFile.write(file, in: folder, name: fileName)
            return value
        }
    }

    /// Stores a string secret. See ``set(_:service:account:label:accessibility:)``.
    public func set(
        _ value: String, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) throws {
        try set(Secret(value), service: service, account: account, label: label, accessibility: accessibility)
    }

    /// The secret stored for a service and account.
    /// - Returns: The value, or `nil` only when there is no such item.
    /// - Throws: ``StorageError``: `.locked` (the item's class key is not in memory), `.corrupt` (edited,
    ///   truncated or swapped file), `.deviceMismatch` (a `ThisDeviceOnly` item from another machine),
    ///   `.unsupportedVersion`, or an I/O error. Never `nil` for any of these.
    public func get(service: String, account: String) throws -> Secret? {
        try item(service: service, account: account, value: true).map { $0.1! }
    }

    /// The attributes of an item, without its value, or `nil` when there is none.
    public func attributes(service: String, account: String) throws -> SecretItem? {
        try item(service: service, account: account, value: false).map(\.0)
    }

    /// Whether an item exists. Needs no class key, only the name key (available after the first unlock).
    public func contains(service: String, account: String) throws -> Bool {
        try checkIdentity(service: service, account: account)
        let fileName = try self.fileName(service: service, account: account)
        let folder = try keyringFolder()
        do throws(Errno) {
            return try folder.status(of: fileName) != nil
        } catch {
            throw error.storageError("cannot inspect the item", tier: .secrets, path: directory + "/" + fileName)
        }
    }

    /// Deletes an item.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(service: String, account: String) throws -> Bool {
        try checkIdentity(service: service, account: account)
        let name = try fileName(service: service, account: account)
        let folder = try keyringFolder()
        return try keyringLock(in: folder).withLock(.shared, timeout: configuration.lockTimeout) {
            do throws(Errno) {
                try folder.unlink(name)
            } catch  where error.code == ENOENT {
                return false
            } catch {
                throw error.storageError("cannot delete the item", tier: .secrets, path: folder.path(of: name))
            }
            try folder.sync()
            return true
        }
    }

    /// The attributes of every item of a service (or of every service), never their values, sorted by account.
    ///
    /// Reading attributes decrypts each item, so items whose class key is not in memory (a locked store's
    /// `whenUnlocked` items) are skipped; every other failure throws.
    public func items(service: String? = nil) throws -> [SecretItem] {
        try allItems(values: false).filter { service == nil || $0.0.service == service }.map(\.0)
            .sorted { ($0.service, $0.account) < ($1.service, $1.account) }
    }

    /// Deletes every item of a service.
    /// - Returns: How many were deleted.
    @discardableResult
    public func deleteAll(service: String) throws -> Int {
        var deleted = 0
        for item in try items(service: service) where try delete(service: item.service, account: item.account) {
            deleted += 1
        }
        return deleted
    }

    /// Checks the keyring's files without a key: `keyring.json` parses and is canonical, every item file has a
    /// valid header. (Authenticity needs the key: ``get(service:account:)`` checks it for each item.)
    /// - Returns: The problems found, each naming its file; empty when all is well.
    public func structuralProblems() -> [String] {
        var problems: [String] = []
        do {
            if try readKeyring() == nil { problems.append("\(keyringPath): missing") }
        } catch {
            problems.append("\(error)")
        }
        let folder = try? keyringFolder()
        let names = (try? folder?.entries()) ?? []
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

    /// How many item files the keyring holds (no key needed).
    public var itemCount: Int {
        ((try? keyringFolder().entries()) ?? []).filter { $0.hasSuffix(Self.itemSuffix) }.count
    }

    // MARK: Internals

    func checkIdentity(service: String, account: String) throws {
        guard !service.isEmpty, !account.isEmpty else {
            throw StorageError(.invalidArgument, "an item needs a non-empty service and account", tier: .secrets)
        }
        guard service.utf8.count <= 1024, account.utf8.count <= 1024 else {
            throw StorageError(.invalidArgument, "service and account are limited to 1024 bytes each", tier: .secrets)
        }
    }

    /// The item file name: a keyed hash of service and account under the keyring's name key.
    func fileName(service: String, account: String) throws -> String {
        let cacheKey = ExactString(service + "\0" + account)  // By exact scalars: NFC and NFD names are two items.
        let (cached, key) = keyMaterial.withLock { ($0.fileNames[cacheKey], $0.names) }
        if let cached { return cached }
        guard let names = key else {
            throw StorageError(
                .locked, "the keyring has not been unlocked in this process", tier: .secrets, path: directory,
                recovery: "Call unlock(with:) first")
        }
        let message = Array(service.utf8) + [0] + Array(account.utf8)
        let name = hex(try names.withBytes { Sodium.keyedHash(message, key: $0, length: 16) }) + Self.itemSuffix
        keyMaterial.withLock { keys in
            if keys.fileNames.count >= 10_000 { keys.fileNames.removeAll(keepingCapacity: true) }
            keys.fileNames[cacheKey] = name
        }
        return name
    }

    func classKey(_ accessibility: SecretAccessibility, writing: Bool) throws -> ([UInt8], GuardedKey) {
        let (id, key) = keyMaterial.withLock { keys in
            (keys.keyringID, accessibility.survivesLock ? keys.afterFirstUnlock : keys.whenUnlocked)
        }
        guard let id, let key, !key.isWiped else {
            throw StorageError(
                .locked,
                "\(writing ? "storing" : "reading") a \(accessibility.rawValue) item needs the store unlocked",
                tier: .secrets, path: directory, recovery: "Call unlock(with:) first")
        }
        return (id, key)
    }

    func keysFor(_ accessibility: SecretAccessibility, service: String, account: String, writing: Bool) throws
        -> ([UInt8], GuardedKey, String)
    {
        let fileName = try fileName(service: service, account: account)
        let (id, key) = try classKey(accessibility, writing: writing)
        return (id, key, fileName)
    }

    func item(service: String, account: String, value: Bool) throws -> (SecretItem, Secret?)? {
        try checkIdentity(service: service, account: account)
        let fileName = try fileName(service: service, account: account)
        let path = directory + "/" + fileName
        guard let (record, accessibility, secret) = try readItem(in: keyringFolder(), fileName: fileName, value: value)
        else {
            return nil
        }
        guard record.service == service, record.account == account else {
            throw StorageError(
                .corrupt, "the item holds another service or account than its name", tier: .secrets, path: path)
        }
        return (SecretItem(record, accessibility: accessibility), secret)
    }

    /// Reads and opens one item file, or `nil` when it does not exist.
    func readItem(in folder: DirectoryHandle, fileName: String, value: Bool) throws
        -> (ItemEnvelope.Record, SecretAccessibility, Secret?)?
    {
        let path = folder.path(of: fileName)
        // Item files are only ever replaced by rename, never appended to: read exactly what fstat reports.
        guard
            let file = try AtomicFile.read(
                in: folder, name: fileName, maximumSize: configuration.valueLimit + (64 << 10), followGrowth: false)
        else { return nil }
        let accessibility = try ItemEnvelope.header(of: file, path: path)
        let (keyringID, key) = try classKey(accessibility, writing: false)
        let (record, secret) = try ItemEnvelope.open(
            file, accessibility: accessibility, keyringID: keyringID, fileName: fileName, key: key, path: path,
            value: value)
        return (record, accessibility, secret)
    }

    /// Every readable item, with its value when asked; `whenUnlocked` items are skipped while locked.
    func allItems(values: Bool) throws -> [(SecretItem, Secret?)] {
        _ = try fileName(service: "-", account: "-")  // Throws `.locked` before the first unlock.
        let names: [String]
        let folder = try keyringFolder()
        do throws(Errno) {
            names = try folder.entries().filter { $0.hasSuffix(Self.itemSuffix) }
        } catch {
            throw error.storageError("cannot list the keyring folder", tier: .secrets, path: directory)
        }
        var result: [(SecretItem, Secret?)] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            do {
                guard let (record, accessibility, secret) = try readItem(in: folder, fileName: name, value: values)
                else {
                    continue
                }
                guard try fileName(service: record.service, account: record.account) == name else {
                    throw StorageError(
                        .corrupt, "the item holds another service or account than its name", tier: .secrets, path: path)
                }
                result.append((SecretItem(record, accessibility: accessibility), secret))
            } catch let error as StorageError where error.code == .locked {
                continue
            }
        }
        return result
    }
}

extension SecretItem {
    init(_ record: ItemEnvelope.Record, accessibility: SecretAccessibility) {
        self.init(
            service: record.service, account: record.account, label: record.label, accessibility: accessibility,
            creationDate: record.created, modificationDate: record.modified, valueSize: record.valueSize)
    }
}

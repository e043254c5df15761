import Foundation
public import StrataCore
public import StrataPostgres
import StrataPostgresClient
public import StrataSecrets
import Synchronization

/// A keyring on PostgreSQL: the secrets tier of a store that several machines share.
///
/// The same items as a ``/StrataSecrets/SecretStore`` — addressed by service and account, sealed with
/// XChaCha20-Poly1305 under the keyring's data key — in the same formats: the keyring's `keyring.json` (the data and
/// name keys wrapped under the machines' key), its item manifest (every item's generation and a sequence number,
/// tagged under the data key) and each item's file are rows of `strata_keyrings` and `strata_secrets` in the store's
/// schema. The key never leaves the machines: every machine unlocks the keyring with the same key file,
/// `STRATA_SECRETS_KEY` or passphrase, and the server holds only sealed bytes and the keyring's name.
///
/// ```swift
/// let secrets = try PostgresSecrets(configuration: PostgresConfiguration(connectionString: url))
/// try secrets.unlock(with: .environment("STRATA_SECRETS_KEY"))
/// try secrets.set(Secret("tok_live_8c1f2a"), service: "api.example.com", account: "alice")
/// ```
///
/// **Rollback.** Each write commits the item and a new manifest (its sequence number one higher) in one
/// transaction, under the keyring row's lock. A read checks the item against the newest manifest it holds: an older
/// item row put back by someone with access to the database, a deleted one put back, a row moved to another item or
/// keyring, all fail (`rolled-back` or `corrupt`). Each machine remembers the highest sequence number it has seen
/// (in memory, and in the anchor file when one is given), so an older manifest put back with its older rows is
/// refused by every machine that saw a newer one; a machine that never did cannot tell, as with a folder restored
/// whole.
///
/// **Rotation** (``rotate(with:)``) re-seals every item under a new data key in one transaction; ``changeKey(to:)``
/// re-wraps the data key. Other machines follow at their next read: a keyring file that changed is unwrapped again
/// with the key they were unlocked with.
public final class PostgresSecrets: Sendable {
    /// The keyring's name.
    public let keyring: String
    /// The server, database and schema.
    public let configuration: PostgresConfiguration
    /// Limits and password-hash costs (the same as a keyring folder's).
    public let secretsConfiguration: SecretsConfiguration
    /// The file this machine keeps the highest manifest sequence number it has seen in, if any.
    public let anchorPath: String?
    /// The connections of reads and writes.
    let pool: PostgresPool
    /// How changes of `Storage`'s items keep the store's catalog true.
    let placement: TierPlacement
    /// The keys and the newest manifest.
    let state = Mutex(PostgresKeyringState())
    /// The highest sequence number this instance wrote to the anchor file.
    let anchorWritten = Mutex<UInt64>(0)

    /// Connects, and creates the keyring tables in the configured schema unless they are there. The keyring stays
    /// locked until ``unlock(with:createIfMissing:)``.
    /// - Parameters:
    ///   - keyring: The keyring's name. The default is `default`.
    ///   - configuration: The server, database and schema (the records tier's, in a shared store).
    ///   - secretsConfiguration: The value limit and the password-hash costs.
    ///   - anchorPath: A file on this machine where the highest manifest sequence number seen is kept, so that a
    ///     manifest rolled back on the server is refused after a restart too. The default (`nil`) keeps it in
    ///     memory only.
    ///   - placement: The catalog the keyring reports changes of `Storage`'s items to. The default reports to none.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` for a bad keyring or schema name,
    ///   `.connectionFailed`, `.authenticationFailed` (the server's).
    public init(
        keyring: String = "default", configuration: PostgresConfiguration,
        secretsConfiguration: SecretsConfiguration = SecretsConfiguration(), anchorPath: String? = nil,
        placement: (any PlacementLedger)? = nil
    ) throws {
        try SecretStore.validateKeyringName(keyring)
        do {
            try configuration.validate()
        } catch var error as StorageError {
            error.tier = .secrets
            throw error
        }
        self.keyring = keyring
        self.configuration = configuration
        self.secretsConfiguration = secretsConfiguration
        self.anchorPath = anchorPath
        self.placement = TierPlacement(.secrets, store: keyring, ledger: placement)
        var client = configuration.client
        client.tier = .secrets
        pool = PostgresPool(client)
        try pool.with { connection in
            try connection.prepareSchema(
                configuration.quotedSchema,
                lock: PostgresAdvisoryLock.key("strata-secrets-schema:\(configuration.schema)"),
                PostgresSecretsSQL.tables,
                operation: "open")
        }
    }

    deinit { pool.drain() }

    /// The name of the anchor file a machine keeps for `keyring` on the server and schema of `configuration` (see
    /// ``anchorPath``): `.strata-secrets-<keyring>-<16 hex digits>.anchor`, the digits a hash of the server, database
    /// and schema, so that a root pointed at another schema or server starts with no memory of this one's keyring.
    public static func anchorFileName(keyring: String, configuration: PostgresConfiguration) -> String {
        let place = PostgresAdvisoryLock.key(configuration.redactedConnectionString + "#" + configuration.schema)
        let digits = String(UInt64(bitPattern: place), radix: 16)
        return ".strata-secrets-\(keyring)-" + String(repeating: "0", count: 16 - digits.count) + digits + ".anchor"
    }

    /// Where the keyring lives, for messages: `postgresql://user@host:port/database#schema/keyring`.
    public var location: String { configuration.redactedConnectionString + "#" + configuration.schema + "/" + keyring }

    // MARK: Items

    /// Stores a secret, replacing any item with the same service and account, committed on the server before it
    /// returns.
    /// - Parameters:
    ///   - value: The secret.
    ///   - service: The service, such as `api.example.com`.
    ///   - account: The account within it.
    ///   - label: A label for people. The default keeps the existing item's label, or is empty.
    ///   - accessibility: When it can be read: ``/StrataSecrets/SecretAccessibility/whenUnlocked`` (the default) or
    ///     ``/StrataSecrets/SecretAccessibility/afterFirstUnlock``; an item bound to one machine has no place on a
    ///     server that machines share.
    /// - Throws: ``/StrataCore/StorageError``: `.locked` when the keyring is locked, `.tooLarge` over the value or an
    ///   attribute's limit, `.invalidArgument` for an empty service or account or a `...ThisDeviceOnly` class,
    ///   `.rolledBack` or `.corrupt` for a keyring tampered with on the server (nothing is written), `.lockLost`, or
    ///   the server's errors.
    public func set(
        _ value: Secret, service: String, account: String, label: String? = nil,
        accessibility: SecretAccessibility = .whenUnlocked
    ) throws {
        let identity = try ItemIdentity.checked(service: service, account: account)
        if let label { try identity.checkAttribute("label", label) }
        guard !accessibility.isThisDeviceOnly else {
            throw StorageError(
                .invalidArgument,
                "a \(accessibility.rawValue) item is bound to one machine, and this keyring is on a server that "
                    + "machines share", tier: .secrets, key: identity.displayKey, path: location,
                recovery: "Store it with .whenUnlocked or .afterFirstUnlock, or in a keyring folder on that machine")
        }
        try secretsConfiguration.checkValueSize(value.count, of: identity)
        let name = try fileName(identity)
        try placement.change(settingItems: [identity]) {
            try write(identity, operation: "set") { connection, keyring in
                // Keep the creation date and label of the item replaced, when it can be vouched for; a row that
                // cannot (put back, damaged) is replaced all the same, as a keyring folder's file is.
                let existing = try? item(name, in: keyring, identity: identity, connection: connection, value: false)
                let now = Date()
                let record = ItemEnvelope.Record(
                    service: service, account: account, label: label ?? existing?.record.label ?? "",
                    created: existing?.record.created ?? now,
                    modified: keyring.manifest.nextGeneration(name, now: now), valueSize: value.count)
                let key = keyring.keys.classKey(accessibility)
                guard !key.isWiped else { throw notUnlocked("storing a \(accessibility.rawValue) item") }
                let sealed = try value.withUnsafeBytes {
                    try ItemEnvelope.seal(
                        record, value: $0, accessibility: accessibility, keyringID: keyring.id, fileName: name,
                        key: key)
                }
                var manifest = keyring.manifest
                manifest.entries[name] = ItemManifest.Entry(
                    modified: record.modified.timeIntervalSince1970, deleted: false)
                return try (
                    (),
                    commit(manifest, keyring: keyring) { sequence, manifestBytes in
                        _ = try connection.query(
                            PostgresSecretsSQL.put,
                            [
                                .text(self.keyring), .text(name), .binary([UInt8](sealed)), .binary(manifestBytes),
                                .text(String(sequence)),
                            ], operation: "set")
                    }
                )
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

    /// The secret, or `nil` only when there is no such item: locked, tampered and server failures all throw.
    /// - Throws: ``/StrataCore/StorageError``: `.locked`, `.rolledBack` (an older row or manifest put back),
    ///   `.corrupt` (edited, moved, or a row missing that the manifest holds), or the server's errors.
    public func get(service: String, account: String) throws -> Secret? {
        try read(ItemIdentity.checked(service: service, account: account), value: true)?.secret
    }

    /// The attributes of an item, without its value, or `nil` when there is none.
    public func attributes(service: String, account: String) throws -> SecretItem? {
        try read(ItemIdentity.checked(service: service, account: account), value: false).map {
            SecretItem($0.record, accessibility: $0.accessibility)
        }
    }

    /// Whether an item exists (its attributes open and match the manifest).
    public func contains(service: String, account: String) throws -> Bool {
        try attributes(service: service, account: account) != nil
    }

    /// Deletes an item.
    /// - Returns: Whether there was one.
    @discardableResult
    public func delete(service: String, account: String) throws -> Bool {
        let identity = try ItemIdentity.checked(service: service, account: account)
        let name = try fileName(identity)
        return try placement.change(settingItems: [], removingItems: [identity]) {
            try write(identity, operation: "delete") { connection, keyring in
                // What is there goes: an item the manifest holds, and any row of its name (one put back, or damaged).
                let row = try connection.query(
                    PostgresSecretsSQL.item, [.text(self.keyring), .text(name)], operation: "delete")
                let held = keyring.manifest.entries[name].map { !$0.deleted } ?? false
                guard held || row.rowCount > 0 else { return (false, nil) }
                var manifest = keyring.manifest
                manifest.entries[name] = manifest.tombstone(name, now: Date())
                return try (
                    true,
                    commit(manifest, keyring: keyring) { sequence, manifestBytes in
                        _ = try connection.query(
                            PostgresSecretsSQL.remove,
                            [.text(self.keyring), .text(name), .binary(manifestBytes), .text(String(sequence))],
                            operation: "delete")
                    }
                )
            }
        }
    }

    /// Every item's attributes (of one service, or all), sorted by service then account, read in one snapshot.
    /// - Throws: ``/StrataCore/StorageError``: `.locked`, `.rolledBack`, `.corrupt` (for any item: a listing does
    ///   not skip what it cannot vouch for), or the server's errors.
    public func items(service: String? = nil) throws -> [SecretItem] {
        let (rows, keyring) = try consistent { held in
            try pool.with { connection in
                try connection.query(
                    PostgresSecretsSQL.everyItem, [.text(self.keyring), .text(String(held))], operation: "list")
            }
        }
        var items: [SecretItem] = []
        var listed = Set<String>()
        for row in 0..<rows.rowCount where !rows.isNull(row, 3) {
            let name = rows.text(row, 3)
            listed.insert(name)
            let opened: OpenedSecret?
            do {
                opened = try open(name, hex: rows.text(row, 4), in: keyring, identity: nil, value: false)
            } catch let error as StorageError where error.code == .locked {
                continue  // A `whenUnlocked` item of a locked store: not listed, as in a keyring folder.
            }
            if let opened, service.map({ ExactString($0) == ExactString(opened.record.service) }) ?? true {
                items.append(SecretItem(opened.record, accessibility: opened.accessibility))
            }
        }
        try checkNoRowMissing(in: keyring, listed: listed)
        return items.sorted {
            $0.service.utf8.elementsEqual($1.service.utf8)
                ? $0.account.utf8.lexicographicallyPrecedes($1.account.utf8)
                : $0.service.utf8.lexicographicallyPrecedes($1.service.utf8)
        }
    }

    // MARK: Internals

    /// The item's row name: a keyed hash of service and account under the keyring's name key.
    func fileName(_ identity: ItemIdentity) throws -> String {
        let (cached, names) = state.withLock { ($0.fileNames[identity], $0.names) }
        if let cached { return cached }
        guard let names else { throw notUnlocked() }
        let name = try identity.fileName(key: names)
        state.withLock { state in
            if state.fileNames.count >= 10_000 { state.fileNames.removeAll(keepingCapacity: true) }
            state.fileNames[identity] = name
        }
        return name
    }

    /// Reads an item in one statement (with the keyring's manifest when it changed since this instance last saw
    /// it), and opens it.
    func read(_ identity: ItemIdentity, value: Bool) throws -> OpenedSecret? {
        let name = try fileName(identity)
        let (row, keyring) = try consistent { held in
            try pool.with { connection in
                try connection.query(
                    PostgresSecretsSQL.read, [.text(self.keyring), .text(String(held)), .text(name)], operation: "get")
            }
        }
        return try open(
            name, hex: row.isNull(0, 3) ? nil : row.text(0, 3), in: keyring, identity: identity, value: value)
    }

    /// The item `name` read in the writer's transaction, after the keyring's lock.
    func item(
        _ name: String, in keyring: CurrentKeyring, identity: ItemIdentity, connection: PostgresConnection, value: Bool
    ) throws -> OpenedSecret? {
        let row = try connection.query(PostgresSecretsSQL.item, [.text(self.keyring), .text(name)], operation: "get")
        return try open(
            name, hex: row.rowCount == 0 ? nil : row.text(0, 0), in: keyring, identity: identity, value: value)
    }

    /// Runs `body` in a transaction that holds the keyring row's lock, with the keyring as the row has it (the
    /// manifest authenticated, and no older than any this machine has seen), after checking, when the calling
    /// thread holds `identity`'s lock in a catalog on this server, that the lock is still held
    /// (``/StrataPostgresClient/PostgresFence``). The keyring `body` returns, written in the transaction, becomes
    /// this instance's once the transaction commits.
    func write<T>(
        _ identity: ItemIdentity?, operation: String,
        _ body: (PostgresConnection, CurrentKeyring) throws -> (T, CurrentKeyring?)
    ) throws -> T {
        let (result, written) = try pool.with { connection in
            try connection.transaction(operation: operation) {
                // The lock, then statements that each see every commit before them: whatever the server's default.
                try connection.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", operation: operation)
                if let identity, let fence = PostgresFence.current(), fence.server == configuration.connectionString {
                    let checked = try connection.query(PostgresSecretsSQL.fence, fence.parameters, operation: operation)
                    guard checked.text(0, 0) == "t" else {
                        throw PostgresFence.lockLost(identity.displayKey, operation, tier: .secrets)
                    }
                }
                // Under the row's lock the row is the newest committed: a manifest older than one seen is a rollback.
                let (_, keyring) = try consistent { held in
                    try connection.query(
                        PostgresSecretsSQL.lock, [.text(self.keyring), .text(String(held))], operation: operation)
                }
                return try body(connection, keyring)
            }
        }
        if let written { remember(written) }
        return result
    }
}

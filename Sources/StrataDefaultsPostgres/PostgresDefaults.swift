package import Foundation
public import StrataCore
public import StrataDefaults
public import StrataPostgres
import StrataPostgresClient
import Synchronization

/// A preference suite on PostgreSQL: the defaults tier of a store that several machines share.
///
/// The same values as a ``/StrataDefaults/DefaultsStore`` (typed property-list values, ``DefaultsKey``s), the same
/// limits (a value limit, a suite budget, counted the same way) and the same guard against credential-looking key
/// names; every machine reads what any machine set last. Each set key is one row of `strata_defaults` in the store's
/// schema (suite, key, the value's `bplist00` bytes); a set is committed on the server before it returns (no
/// coalescing, so no loss window), and every other machine's observers hear of it through `NOTIFY`.
///
/// ```swift
/// let defaults = try PostgresDefaults(configuration: PostgresConfiguration(connectionString: url))
/// try defaults.set(true, for: DefaultsKey("hasCompletedOnboarding", default: false))
/// ```
///
/// Reads ask the server each time (one round trip); there is no copy in memory to go stale. A set takes the
/// suite's lock (a transaction-level advisory lock) so that concurrent sets on several machines add up against the
/// budget one at a time.
public final class PostgresDefaults: Sendable {
    /// The suite's name (`standard`, `group.com.example.shared`).
    public let suite: String
    /// The server, database and schema.
    public let configuration: PostgresConfiguration
    /// The value limit and the suite's budget.
    public let limits: DefaultsLimits
    /// Names allowed although they look like credentials, by their exact scalars.
    let allowedSensitiveNames: Set<ExactString>
    /// The connections of reads and writes.
    let pool: PostgresPool
    /// How the suite's changes keep the store's catalog true.
    let placement: TierPlacement
    /// The channel every writer of the store's defaults notifies.
    let channel: String
    /// Tags this instance's notifications, so that its own sets are not reported back to it as external.
    let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    /// The suite's advisory lock, taken by every set and removal for its transaction.
    let suiteLock: Int64
    /// The observers and the listener that serves them.
    let observers = Mutex<DefaultsObservers>(DefaultsObservers())

    /// Connects, and creates the defaults table in the configured schema unless it is there.
    /// - Parameters:
    ///   - suite: The suite's name. The default is `standard`.
    ///   - configuration: The server, database and schema (the records tier's, in a shared store).
    ///   - limits: The value limit and suite budget. The default is 64 KiB a value and 1 MiB a suite.
    ///   - allowedSensitiveKeys: Key names allowed although they look like credentials. The default is none.
    ///   - placement: The catalog the suite reports the changes made through its own API to (see
    ///     ``/StrataCore/PlacementLedger``). The default (`nil`) reports to none.
    /// - Throws: ``/StrataCore/StorageError``: `.invalidArgument` for a bad suite or schema name,
    ///   `.connectionFailed`, `.authenticationFailed`.
    public init(
        suite: String = "standard", configuration: PostgresConfiguration, limits: DefaultsLimits = DefaultsLimits(),
        allowedSensitiveKeys: Set<String> = [], placement: (any PlacementLedger)? = nil
    ) throws {
        try DefaultsStore.validateSuiteName(suite)
        do {
            try configuration.validate()
        } catch var error as StorageError {
            error.tier = .defaults
            throw error
        }
        self.suite = suite
        self.configuration = configuration
        self.limits = limits
        self.allowedSensitiveNames = Set(allowedSensitiveKeys.map { ExactString($0) })
        self.placement = TierPlacement(.defaults, store: suite, ledger: placement)
        // At most 57 bytes (a schema has at most 48): PostgreSQL cuts channel names at 63.
        self.channel = "strata_d_" + configuration.schema
        self.suiteLock = PostgresAdvisoryLock.key("strata-defaults:\(configuration.schema):\(suite)")
        var client = configuration.client
        client.tier = .defaults
        pool = PostgresPool(client)
        try pool.with { connection in
            try connection.prepareSchema(
                configuration.quotedSchema,
                lock: PostgresAdvisoryLock.key("strata-defaults-schema:\(configuration.schema)"),
                PostgresDefaultsSQL.table,
                operation: "open")
        }
    }

    deinit {
        observers.withLock { $0.stopListening() }
        pool.drain()
    }

    // MARK: Typed access

    /// The key's set value, or `nil` when it has none.
    /// - Throws: ``/StrataCore/StorageError`` `.typeMismatch` when the stored value has another type,
    ///   `.invalidArgument` for a key of another suite, or the server's errors.
    public func value<Value>(for key: DefaultsKey<Value>) throws -> Value? {
        try checkSuite(of: key)
        guard let stored = try object(forKey: key.name) else { return nil }
        return try DefaultsCoding.decode(Value.self, from: stored, key: key.name)
    }

    /// Sets the key's value (`nil` for an optional key removes it).
    /// - Throws: ``/StrataCore/StorageError``: `.sensitiveKey`, `.tooLarge` (over the value limit or the suite's
    ///   budget), `.invalidArgument` for a key of another suite, `.lockLost` for a write of a key whose lock the
    ///   store lost, or the server's errors.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        try checkSuite(of: key)
        guard let encoded = try DefaultsCoding.encode(value, key: key.name) else {
            try removeObject(forKey: key.name)
            return
        }
        try set(encoded, forKey: key.name, allowingSensitiveName: key.allowsSensitiveName)
    }

    /// Removes the key's set value.
    public func reset<Value>(_ key: DefaultsKey<Value>) throws {
        try checkSuite(of: key)
        try removeObject(forKey: key.name)
    }

    /// Refuses a key that names another suite: this instance serves one.
    func checkSuite<Value>(of key: DefaultsKey<Value>) throws {
        if let other = key.suite, ExactString(other) != ExactString(suite) {
            throw StorageError(
                .invalidArgument, "the key belongs to the suite '\(other)', and this is the suite '\(suite)'",
                tier: .defaults, key: key.name, recovery: "Open a PostgresDefaults on the suite '\(other)'")
        }
    }

    // MARK: Untyped access

    /// The set value of a key, or `nil`. Keys are matched by their exact Unicode scalars.
    /// - Throws: ``/StrataCore/StorageError``: the server's errors, `.corrupt` for a stored value that is not a
    ///   property list.
    public func object(forKey key: String) throws -> PropertyListValue? {
        let bytes = try pool.with { connection -> [UInt8]? in
            let result = try connection.query(
                PostgresDefaultsSQL.value, [.text(suite), .text(key)], operation: "get")
            return result.rowCount == 0 ? nil : try hex(result.text(0, 0), key: key)
        }
        return try bytes.map { try decode($0, key: key) }
    }

    /// Every set key, sorted by their UTF-8 bytes.
    public func allKeys() throws -> [String] {
        try pool.with { connection in
            let result = try connection.query(PostgresDefaultsSQL.keys, [.text(suite)], operation: "keys")
            return (0..<result.rowCount).map { result.text($0, 0) }
        }
    }

    /// Every set value, read in one statement.
    public func dictionaryRepresentation() throws -> [ExactString: PropertyListValue] {
        let rows = try pool.with { connection in
            let result = try connection.query(PostgresDefaultsSQL.all, [.text(suite)], operation: "list")
            return try (0..<result.rowCount).map { row in
                let key = result.text(row, 0)
                return (key, try hex(result.text(row, 1), key: key))
            }
        }
        var values: [ExactString: PropertyListValue] = [:]
        for (key, bytes) in rows { values[ExactString(key)] = try decode(bytes, key: key) }
        return values
    }

    /// Sets a property-list value, committed on the server before it returns.
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key, kept exactly as given.
    ///   - allowingSensitiveName: Permit a credential-looking key name.
    /// - Throws: See ``set(_:for:)``.
    public func set(_ value: PropertyListValue, forKey key: String, allowingSensitiveName: Bool = false) throws {
        try DefaultsEntryRules.checkName(
            key, allowingSensitiveName: allowingSensitiveName, allowed: allowedSensitiveNames)
        let exact = ExactString(key)
        let entry = try DefaultsEntryRules.checkedEntrySize(exact, value, valueLimit: limits.valueLimit)
        let bytes = [UInt8](BinaryPropertyList.encode(value))
        try placement.change(setting: [key]) { _, _ in
            try write(key, operation: "set") { connection in
                let result = try connection.query(
                    PostgresDefaultsSQL.upsert,
                    [
                        .text(suite), .text(key), .binary(bytes), .text(String(entry)),
                        .text(String(Date().timeIntervalSince1970)), .text(channel), .text(payload(key)),
                        .text(String(limits.suiteBudget)),
                    ], operation: "set")
                guard result.text(0, 1) != "0" else {
                    throw DefaultsEntryRules.overBudget(
                        size: Int(result.text(0, 0)) ?? .max, budget: limits.suiteBudget, key: key)
                }
            }
        }
        notifyHere([key])
    }

    /// Removes a key's set value.
    /// - Returns: Whether there was one.
    @discardableResult
    public func removeObject(forKey key: String) throws -> Bool {
        let removed = try placement.change(setting: [], removing: [key]) { _, _ in
            try write(key, operation: "delete") { connection in
                try connection.query(
                    PostgresDefaultsSQL.delete, [.text(suite), .text(key), .text(channel), .text(payload(key))],
                    operation: "delete"
                ).rowCount > 0
            }
        }
        if removed { notifyHere([key]) }
        return removed
    }

    /// Runs `body` in a transaction that holds the suite's lock, after checking, when the calling thread holds
    /// `key`'s lock in a catalog on this server, that the lock is still held (``/StrataPostgresClient/PostgresFence``).
    /// - Throws: ``/StrataCore/StorageError`` `.lockLost` when it is not (nothing is written), or what `body` throws.
    func write<T>(_ key: String, operation: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        try pool.with { connection in
            try connection.transaction(operation: operation) {
                if let fence = PostgresFence.current(), fence.server == configuration.connectionString {
                    let checked = try connection.query(
                        PostgresDefaultsSQL.lockSuiteFenced, [.text(String(suiteLock))] + fence.parameters,
                        operation: operation)
                    guard checked.text(0, 0) == "t" else { throw Self.lockLost(key, operation) }
                } else {
                    _ = try connection.query(
                        PostgresDefaultsSQL.lockSuite, [.text(String(suiteLock))], operation: operation)
                }
                return try body(connection)
            }
        }
    }

    /// The refusal of a write whose key's lock the calling thread lost: nothing was written.
    static func lockLost(_ key: String, _ operation: String) -> StorageError {
        PostgresFence.lockLost(key, operation, tier: .defaults)
    }

    /// An expression that is the value of the key in the text parameter `key` (`$1`) in the suite in the text
    /// parameter `suite`, as the server sends it (``byteForm(ofServerValue:key:)`` reads it), or `NULL`: for a
    /// statement on a connection whose search path is the store's schema, such as the catalog's lookup, which reads
    /// the value in the same step.
    package static func value(ofKeyIn key: String, suiteIn suite: String) -> String {
        "(SELECT encode(value, 'hex') FROM strata_defaults WHERE suite = \(suite)::text AND key = \(key)::text)"
    }

    /// The byte form (``/StrataDefaults/PropertyListValue/byteForm()``, what ``data(for:)`` returns) of a value as
    /// ``value(ofKeyIn:suiteIn:)`` has the server send it.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming `key` for a value that is not a property list.
    package func byteForm(ofServerValue text: String, key: String) throws -> Data {
        let value = try decode(try hex(text, key: key), key: key)
        do {
            return try value.byteForm()
        } catch {
            throw error.attributed(tier: .defaults, key: key)
        }
    }

    /// The payload of a change of `key`: this instance's token, the suite's length in bytes, the suite, the key.
    func payload(_ key: String) -> String { "\(token) \(suite.utf8.count) \(suite)\(key)" }

    /// The bytes of a value the server sent as hex.
    func hex(_ text: String, key: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(text) else {
            throw StorageError(
                .corrupt, "the server sent a value that is not hex", tier: .defaults, key: key, path: location)
        }
        return bytes
    }

    /// A stored value.
    /// - Throws: ``/StrataCore/StorageError`` `.corrupt` naming the key and where the suite lives.
    func decode(_ bytes: [UInt8], key: String) throws -> PropertyListValue {
        do {
            return try PropertyListFormat.decode(Data(bytes))
        } catch {
            throw StorageError(
                .corrupt, "the stored value is not a property list: \(error)", tier: .defaults, key: key,
                path: location, recovery: "Set the key again, or remove it")
        }
    }

    /// Where the suite lives, for messages: `postgresql://user@host:port/database#schema/suite`.
    public var location: String { configuration.redactedConnectionString + "#" + configuration.schema + "/" + suite }
}

import Foundation
public import StrataPostgres
public import StrataRecords
import StrataSQLite

/// The record engines the tests run their bodies against.
public enum RecordEngineKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The environment variable naming the PostgreSQL server the tests use (set by `Scripts/postgres.sh`).
    public static let postgresVariable = "STRATA_POSTGRES_URL"

    /// SQLite always; PostgreSQL when `STRATA_POSTGRES_URL` names a server.
    public static var available: [RecordEngineKind] {
        ProcessInfo.processInfo.environment[postgresVariable].map { $0.isEmpty ? [.sqlite] : [.sqlite, .postgres] }
            ?? [.sqlite]
    }
}

/// A fresh, empty record store for one test, on either engine: a file in a temporary folder, or a schema of
/// its own on the test server (dropped when the location is released).
public final class RecordStoreLocation: Sendable {
    public let kind: RecordEngineKind
    /// A temporary folder for the test's other files (and the SQLite file).
    public let directory: TemporaryDirectory
    /// What a child process is given to open the same store: the file path, or `postgres:<schema>`.
    public let location: String

    public init(_ kind: RecordEngineKind) throws {
        self.kind = kind
        directory = try TemporaryDirectory(prefix: "strata-records")
        switch kind {
        case .sqlite: location = directory.appending("store.sqlite")
        case .postgres: location = "postgres:t_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        }
    }

    deinit {
        if kind == .postgres, let configuration = try? Self.postgresConfiguration(location) {
            _ = try? PostgresRecordEngine.dropStore(configuration)
        }
    }

    /// Opens the store (again).
    public func open(migrations: [Migration] = [], configuration: RecordsConfiguration? = nil) throws -> RecordStore {
        try Self.open(location, migrations: migrations, configuration: configuration)
    }

    /// Opens the store at a location made by ``RecordStoreLocation`` (in this process or a parent).
    public static func open(
        _ location: String, migrations: [Migration] = [], configuration: RecordsConfiguration? = nil
    ) throws -> RecordStore {
        if location.hasPrefix("postgres:") {
            return try PostgresRecordEngine.store(postgresConfiguration(location), migrations: migrations)
        }
        return try RecordStore(
            path: location, configuration: configuration ?? RecordsConfiguration(), migrations: migrations)
    }

    /// The test server's configuration with the location's schema.
    public static func postgresConfiguration(_ location: String) throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment[RecordEngineKind.postgresVariable], !url.isEmpty else {
            throw CocoaError(
                .featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "STRATA_POSTGRES_URL is not set"])
        }
        return PostgresConfiguration(connectionString: url, schema: String(location.dropFirst("postgres:".count)))
    }
}

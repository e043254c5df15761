import Foundation
import Strata

/// The options a `strata records` verb opens its record store with (`--root`, `--url`, `--store`), and how it
/// opens it.
struct RecordsAccess: Sendable {
    static let urlOption = Option(
        "--url", "URL", "A postgresql:// connection string: the store on PostgreSQL (or set STRATA_RECORDS_URL)."
    ) { url in
        guard url.isEmpty || PostgresConfiguration.isPostgresURL(url) else {
            throw UsageError("'--url' takes a postgresql:// connection string")
        }
        return url
    }
    static let storeOption = StoreAccess.nameOption(
        "--store", of: "record store", "The record store. The default is 'main'.")
    /// The options every records verb takes (`import` adds ``StoreRoot/createFlag``).
    static let options: [any OptionDeclaration] = [StoreRoot.option, urlOption, storeOption]

    var root: StoreRoot
    /// `--url`, if given and not empty.
    var url: String?
    /// `--store`, if given.
    var store: String?

    init(parsing arguments: inout ParsedArguments, acceptsCreate: Bool = false) throws {
        root = try StoreRoot(parsing: &arguments, acceptsCreate: acceptsCreate)
        url = try arguments.value(Self.urlOption).flatMap { $0.isEmpty ? nil : $0 }
        store = try arguments.value(Self.storeOption)
    }

    /// The record store: on PostgreSQL when `--url` is given, or the root's configuration puts the records tier
    /// there, or (without a configuration that says otherwise) `STRATA_RECORDS_URL` is one; else the SQLite store
    /// of the root (`--store`, else the configuration's), which must exist unless `use` is `.write`, and is then
    /// opened read-only.
    func open(for use: StoreRoot.Use = .read) throws -> RecordStore {
        try open(for: use, missingIsEmpty: false)!
    }

    /// The record store as ``open(for:)`` opens it, or `nil` when a read finds no SQLite record store where the
    /// root's configuration puts it: the tier is empty, and a read verb shows it empty. A `--store` name given that
    /// does not exist stays `not-found` (a mistyped name never reads as an empty store).
    func openIfPresent() throws -> RecordStore? {
        try open(for: .read, missingIsEmpty: true)
    }

    private func open(for use: StoreRoot.Use, missingIsEmpty: Bool) throws -> RecordStore? {
        if let url { return try PostgresRecordEngine.store(PostgresConfiguration(connectionString: url)) }
        let configuration = try StoreAccess.configuration(root, for: use)
        if let url = try Storage.recordsURL(configuration, environment: ProcessInfo.processInfo.environment) {
            return try PostgresRecordEngine.store(PostgresConfiguration(connectionString: url))
        }
        let paths = try StoreAccess.paths(root, for: use)
        let name = store ?? configuration.records.store
        if use == .write { return try RecordStore(name: name, paths: paths) }
        let path = RecordStore.sqlitePath(name: name, paths: paths)
        guard FileManager.default.fileExists(atPath: path) else {
            if missingIsEmpty && store == nil { return nil }
            throw StorageError(
                .notFound, "there is no record store '\(name)'", tier: .records, path: path,
                recovery: "Check --store and --root; 'strata records import COLLECTION FILE' makes the store")
        }
        return try StoreAccess.readOnlyRecords(at: path)
    }
}

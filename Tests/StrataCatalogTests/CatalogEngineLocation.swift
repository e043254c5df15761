import Foundation
import StrataCatalog
import StrataCatalogPostgres
import StrataPostgres
import StrataTestSupport

/// The catalog engines the tests run their bodies against.
enum CatalogEngineKind: String, Sendable, CustomStringConvertible {
    case file, postgres

    var description: String { rawValue }

    /// The file catalog always; the PostgreSQL one when `STRATA_POSTGRES_URL` names a server.
    static var available: [CatalogEngineKind] {
        RecordEngineKind.available.contains(.postgres) ? [.file, .postgres] : [.file]
    }
}

/// A fresh, empty catalog for one test: a store root in a temporary folder, or a schema of its own on the test
/// server (dropped when the location is released). Each ``open()`` is another instance on it: another process of
/// the machine, or another machine.
final class CatalogEngineLocation: Sendable {
    let kind: CatalogEngineKind
    /// A temporary folder: the file catalog's root, and the test's other files.
    let directory: TemporaryDirectory
    /// The test server and the schema, for the PostgreSQL catalog.
    let postgres: PostgresConfiguration?

    init(_ kind: CatalogEngineKind) throws {
        self.kind = kind
        directory = try TemporaryDirectory(prefix: "strata-catalog")
        postgres =
            kind == .postgres
            ? try RecordStoreLocation.postgresConfiguration(
                "postgres:c_" + String(UInt64.random(in: 0...UInt64.max), radix: 36))
            : nil
    }

    deinit {
        if let postgres { _ = try? PostgresRecordEngine.dropStore(postgres) }
    }

    /// Opens an instance of the catalog.
    func open() throws -> any CatalogEngine {
        switch kind {
        case .file: try StorageCatalog(root: directory.path)
        case .postgres: try PostgresCatalog(postgres!)
        }
    }
}

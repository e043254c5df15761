import Foundation
import StrataCatalog
import StrataCore
import StrataPostgres
import StrataPostgresClient
import Testing

@testable import StrataCatalogPostgres

/// What the PostgreSQL catalog does with a table it did not write: a row with codes it does not know, and a catalog
/// of a newer format. Each is a typed error naming what and where; nothing is changed.
@Suite(
    "PostgreSQL catalog table",
    .enabled(if: CatalogEngineKind.available.contains(.postgres), "STRATA_POSTGRES_URL names no server"))
struct PostgresCatalogTableTests {
    /// Runs `sql` on the catalog's schema.
    func execute(_ sql: String, on catalog: PostgresCatalog) throws {
        try catalog.pool.with { try $0.execute(sql, operation: "test") }
    }

    @Test(arguments: [
        ("UPDATE strata_catalog SET tier = 9 WHERE key = 'k'", "an unknown tier code 9"),
        ("UPDATE strata_catalog SET kind = 77 WHERE key = 'k'", "an unknown kind code 77"),
        ("UPDATE strata_catalog SET moving_to = 12 WHERE key = 'k'", "an unknown tier code 12"),
    ])
    func aRowWithCodesItDoesNotKnowIsCorruptNamingTheKey(sql: String, what: String) throws {
        let store = try CatalogEngineLocation(.postgres)
        let catalog = try #require(try store.open() as? PostgresCatalog)
        let location = StorageLocation(
            key: "k", tier: .records, backend: "postgres", ruleID: "rule", kind: .structured, contentType: nil,
            size: 1, modified: Date())
        try catalog.record([.set(location)], durable: true)
        try execute(sql, on: catalog)
        let error = try #require(throws: StorageError.self) {
            _ = try catalog.location(of: "k")
            _ = try catalog.keyPlacement(of: "k")
        }
        #expect(error.code == .corrupt)
        #expect(error.key == "k")
        #expect(error.message.contains(what), "\(error)")
        #expect(error.path?.hasSuffix("#" + catalog.configuration.schema) == true, "\(error)")
        #expect(try catalog.location(of: "other") == nil, "other keys still read")
    }

    @Test func aCatalogOfANewerFormatIsRefusedAtOpen() throws {
        let store = try CatalogEngineLocation(.postgres)
        let catalog = try #require(try store.open() as? PostgresCatalog)
        try execute("UPDATE strata_catalog_meta SET value = '99' WHERE key = 'format_version'", on: catalog)
        let error = try #require(throws: StorageError.self) { _ = try store.open() }
        #expect(error.code == .unsupportedVersion)
        #expect(error.message.contains("format version 99"), "\(error)")
    }
}

import Foundation
import StrataCatalog
import StrataCore
import StrataTestSupport
import Synchronization
import Testing

@testable import Strata

/// The feed behind `Storage.observe`: what it reports when a look at the catalog fails halfway.
struct StorageChangeFeedTests {
    /// A key's change found before a later key's lookup failed is not lost: the failed look reports nothing, and the
    /// next one reports both keys' changes.
    @Test func aLookThatFailsHalfwayLosesNoChange() throws {
        let directory = try TemporaryDirectory(prefix: "strata-feed")
        let catalog = RefusingLookupCatalog(try StorageCatalog(root: directory.path))
        func location(_ key: String, in tier: Tier) -> StorageLocation {
            StorageLocation(
                key: key, tier: tier, backend: "test", ruleID: "test", kind: nil, contentType: nil, size: 1,
                modified: Date(timeIntervalSince1970: 1))
        }
        try catalog.record([.set(location("a", in: .records)), .set(location("b", in: .records))], durable: false)
        var feed = try StorageChangeFeed(.prefix(""), catalog: catalog)

        try catalog.record([.set(location("a", in: .files)), .remove(key: "b")], durable: false)
        catalog.refused.withLock { $0 = ["b"] }
        #expect(throws: StorageError.self) { try feed.changes(in: catalog) }
        catalog.refused.withLock { $0 = [] }
        let changes = try feed.changes(in: catalog)
        #expect(changes.map(\.key) == ["a", "b"])
        #expect(changes.map(\.event) == [.moved(from: .records), .removed(from: .records)])
    }
}

import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataCatalog

/// What observing asks of the file catalog: a count of observers every process shares, and the records of writes
/// through a tier's own API, which never take a key from the tier the catalog places it in.
@Suite("Storage catalog: observation")
struct CatalogObservationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func location(_ key: String, in tier: Tier, modified: Date = Date()) -> StorageLocation {
        StorageLocation(
            key: key, tier: tier, backend: "b", ruleID: "r", kind: .preference, contentType: nil, size: 1,
            modified: modified)
    }

    /// Two catalogs on one root (as two processes) share the count, which never goes below 0.
    @Test func theCountOfObserversIsSharedAndStopsAtZero() throws {
        let root = directory.appending("store")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let one = try StorageCatalog(root: root)
        let other = try StorageCatalog(root: root)
        #expect(!one.isObserved && !other.isObserved)
        one.beginObserving()
        #expect(other.isObserved)
        other.beginObserving()
        one.endObserving()
        #expect(one.isObserved)
        other.endObserving()
        other.endObserving()  // one end too many (a holder that was counted out already)
        #expect(!one.isObserved)
        one.beginObserving()
        #expect(other.isObserved, "an extra end took the count below 0")
    }

    /// A rewrite records a key placed in the tier again with a later time, records a key placed nowhere as found,
    /// and leaves alone a key placed in another tier or under a move, read by another instance as it stands.
    @Test func aRewriteNeverTakesAKeyFromAnotherTier() throws {
        let root = directory.appending("store")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let catalog = try StorageCatalog(root: root)
        let past = Date(timeIntervalSince1970: 1_000)
        try catalog.record(
            [
                .set(location("here", in: .defaults, modified: past)),
                .set(location("elsewhere", in: .files, modified: past)),
                .set(location("moving", in: .defaults, modified: past)),
                .intent(key: "moving", from: .defaults, to: .records),
            ], durable: false)
        // Another process's catalog, which has not caught up with those records yet when it rewrites.
        let other = try StorageCatalog(root: root)
        try other.recordRewrite(of: ["here", "elsewhere", "moving", "new"], in: .defaults, backend: "plist")
        let here = try #require(try catalog.location(of: "here"))
        #expect(here.tier == .defaults && here.modified > past && here.ruleID == "r")
        #expect(try catalog.location(of: "elsewhere") == location("elsewhere", in: .files, modified: past))
        #expect(try catalog.location(of: "moving") == location("moving", in: .defaults, modified: past))
        let new = try #require(try catalog.location(of: "new"))
        #expect(new.tier == .defaults && new.ruleID == "found" && new.backend == "plist" && new.kind == nil)
        // A second rewrite within the same clock tick still changes the entry.
        try other.recordRewrite(of: ["here"], in: .defaults, backend: "plist")
        #expect(try catalog.location(of: "here")?.modified ?? past > here.modified)
    }
}

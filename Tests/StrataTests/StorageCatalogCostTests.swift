import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// A put that leaves a key where it was costs the catalog nothing, and the key's location still tells its current
/// size and time (from the tier).
@Suite("Storage: puts that stay in their tier")
struct StorageCatalogCostTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-storage-cost")
    }

    func logSize() throws -> Int {
        try FileManager.default.attributesOfItem(atPath: root + "/catalog/log")[.size] as? Int ?? -1
    }

    @Test(arguments: Tier.allCases)
    func aSameTierPutAppendsNothingAndTheLocationIsCurrent(_ tier: Tier) throws {
        let storage = try openStorage(root)
        let descriptor = try #require(descriptorForTier[tier])
        try storage.put(Data(repeating: 1, count: 10), for: "k", as: descriptor)
        let first = try #require(try storage.location(of: "k"))
        let size = try logSize()
        Thread.sleep(forTimeInterval: 0.02)
        try storage.put(Data(repeating: 2, count: 14), for: "k", as: descriptor)
        #expect(try logSize() == size, "the second put appended to the catalog")
        let second = try #require(try storage.location(of: "k"))
        #expect(second.tier == tier && second.size == 14)
        #expect(second.modified >= first.modified)
        #expect(try storage.data(for: "k") == Data(repeating: 2, count: 14))
        // Another instance (as another process) agrees.
        #expect(try openStorage(root).location(of: "k")?.size == 14)
        // A put by another rule is a new placement: recorded.
        var other = descriptor
        other.contentType = tier == .files ? "image/png" : "text/plain"
        try storage.put(Data(repeating: 3, count: 5), for: "k", as: other)
        #expect(try logSize() > size)
    }

    /// The catalog keeps at most 254 bytes of a content type; a put with a longer one that stays where it was is
    /// still the same placement (it appended a record on every put, comparing the kept prefix with the whole type).
    @Test func aSameTierPutWithALongContentTypeAppendsNothing() throws {
        let storage = try openStorage(root)
        let descriptor = DataDescriptor(
            kind: .preference, estimatedSize: 16, contentType: "text/x-" + String(repeating: "a", count: 300))
        try storage.put(Data(repeating: 1, count: 10), for: "k", as: descriptor)
        let size = try logSize()
        try storage.put(Data(repeating: 2, count: 10), for: "k", as: descriptor)
        try storage.put(Data(repeating: 3, count: 10), for: "k", as: descriptor)
        #expect(try logSize() == size, "a put that stayed in its tier appended to the catalog")
        #expect(try storage.location(of: "k")?.contentType?.utf8.count == 254)
        #expect(try storage.data(for: "k") == Data(repeating: 3, count: 10))
    }

    /// Storing a value does not write the selection's reason: it is written when read, and reads as the rule says.
    @Test func aPutWritesTheSelectionsReasonOnlyWhenItIsRead() throws {
        let written = Mutex(0)
        let counting = SelectionRule(
            id: "counted-preference", condition: "a preference", tier: .defaults,
            appleEquivalent: { _ in "UserDefaults" },
            matches: { descriptor, _ in descriptor.kind == .preference },
            reason: { descriptor, _ in
                written.withLock { $0 += 1 }
                return "a preference of \(descriptor.estimatedSize) bytes"
            })
        let storage = try Storage(
            root: root, selector: StorageSelector(rules: [counting] + SelectionRule.standard),
            secretsKey: testSecretsKey)
        var selections: [Selection] = []
        for index in 0..<20 {
            selections.append(
                try storage.put(Data(repeating: 1, count: 10), for: "k\(index)", as: descriptorForTier[.defaults]!))
        }
        #expect(written.withLock { $0 } == 0, "puts wrote reasons nobody read")
        #expect(selections[3].ruleID == "counted-preference" && selections[3].backend == "plist")
        #expect(selections[3].reason == "a preference of 16 bytes")
        #expect(written.withLock { $0 } == 1)
        // Equal selections are equal whether their reason was given or is written when read, and hash alike.
        var given = selections[3]
        given.reason = "a preference of 16 bytes"
        #expect(given == selections[3] && given.hashValue == selections[3].hashValue)
        given.reason = "another reason"
        #expect(given != selections[3] && given.reason == "another reason")
    }
}

import Foundation
import Strata
import StrataTestSupport
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
}

import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// Index names at their edges: the longest collection and field names, names that meet only past the 63 bytes a
/// name keeps, and one index declared again in many shapes.
@Suite("Records: index names at their edges")
struct IndexNameAdversarialTests {
    struct Wide: Codable, Identifiable, Sendable, Equatable {
        var id: String
        var f = 0
        var g = 0
    }

    /// A collection name of the longest kind (64 bytes) gets its indexes, and they check what they say, again when
    /// declared again and after a reopen.
    @Test(arguments: RecordEngineKind.available)
    func theLongestCollectionNameGetsItsIndexes(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let name = "L" + String(repeating: "x", count: 63)
        let indexes: [Index] = [.unique("f"), .field("g")]
        let collection = try store.collection(Wide.self, named: name, indexes: indexes)
        try collection.insert(Wide(id: "1", f: 1))
        #expect(throws: StorageError.self) { try collection.insert(Wide(id: "2", f: 1)) }
        _ = try store.collection(Wide.self, named: name, indexes: indexes)
        _ = try fixture.store().collection(Wide.self, named: name, indexes: indexes)
    }

    /// Fields whose index names meet only in the part a long name keeps (46 bytes, then a hash of the whole) are
    /// two indexes.
    @Test(arguments: RecordEngineKind.available)
    func longIndexNamesThatShareTheirKeptBytesAreTwo(_ engine: RecordEngineKind) throws {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let long = String(repeating: "z", count: 60)
        let first = Index.unique(Field(long + ".f"))
        let second = Index.unique(Field(long + ".g"))
        #expect(first.name(in: "c") != second.name(in: "c"))
        #expect(first.name(in: "c").utf8.count <= 63)
        struct Deep: Codable, Identifiable, Sendable {
            var id: String
            var inner: [String: Int]
        }
        let collection = try store.collection(Deep.self, named: "c", indexes: [first, second])
        try collection.insert(Deep(id: "1", inner: [:]))
        _ = try store.collection(Deep.self, named: "c", indexes: [second, first])
    }
}

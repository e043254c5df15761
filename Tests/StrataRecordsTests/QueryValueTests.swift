import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataRecords

/// An episode of a podcast: the fields a player queries on, in the types Swift gives them.
struct Episode: Codable, Identifiable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable { case audio, video }
    enum Rank: Int, Codable, Sendable { case low = 1, high = 2 }
    struct Show: Codable, Sendable, Equatable {
        var name: String
        var city: String
    }
    var id: String
    var feedID: String
    var title: String
    var published: Date
    var guid: UUID
    var kind: Kind
    var rank: Rank
    var rating: Double?
    var explicit: Bool
    var seconds: Int
    var show: Show
}

/// Queries take Swift values (`String`, integers, `Double`, `Bool`, `Date`, `UUID`, optionals, raw-value enums) and
/// compare them as the record coder stores them; before, `Field("published") >= date` did not compile and needed
/// `.real(date.timeIntervalSinceReferenceDate)`.
@Suite("Records: queries take Swift values")
struct QueryValueTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let guids = (0..<10).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0))! }

    static func episode(_ index: Int) -> Episode {
        Episode(
            id: "e\(index)", feedID: index % 2 == 0 ? "daily" : "weekly", title: "Episode \(index)",
            published: start.addingTimeInterval(Double(index) * 86_400 + 0.25), guid: guids[index],
            kind: index % 3 == 0 ? .video : .audio, rank: index < 5 ? .low : .high,
            rating: index == 4 ? nil : Double(index) / 2, explicit: index == 7, seconds: index * 60,
            show: Episode.Show(name: "Show", city: index == 1 ? "Oslo" : "Lima"))
    }

    static func episodes(_ engine: RecordEngineKind) throws -> (RecordsFixture, RecordCollection<Episode>) {
        let fixture = try RecordsFixture(engine)
        let store = try fixture.store()
        let episodes = try store.collection(
            Episode.self, named: "episodes", indexes: [.field("published"), .field("feedID"), .field("guid")])
        try episodes.insert(contentsOf: (0..<10).map(episode))
        return (fixture, episodes)
    }

    @Test(arguments: engines)
    func swiftValuesCompareAsTheyAreStored(_ engine: RecordEngineKind) throws {
        let (fixture, episodes) = try Self.episodes(engine)
        defer { withExtendedLifetime(fixture) {} }
        func ids(_ predicate: StrataRecords.Predicate) throws -> [String] {
            try episodes.fetch(Query(predicate, sort: [.ascending("seconds")])).map(\.id)
        }
        let feed = "daily"
        let from = Self.start.addingTimeInterval(2 * 86_400)
        let to = Self.start.addingTimeInterval(5 * 86_400 + 0.25)
        #expect(try ids(Field("feedID") == feed) == ["e0", "e2", "e4", "e6", "e8"], "\(engine)")
        #expect(try ids(Field("published") >= from && Field("published") < to) == ["e2", "e3", "e4"], "\(engine)")
        #expect(try ids(Field("published") <= to) == ["e0", "e1", "e2", "e3", "e4", "e5"], "\(engine)")
        #expect(try ids(Field("published") == Self.episode(7).published) == ["e7"], "\(engine)")
        #expect(try ids(Field("guid") == Self.guids[3]) == ["e3"], "\(engine)")
        #expect(try ids(Field("kind") == Episode.Kind.video) == ["e0", "e3", "e6", "e9"], "\(engine)")
        #expect(try ids(Field("rank") > Episode.Rank.low) == ["e5", "e6", "e7", "e8", "e9"], "\(engine)")
        #expect(try ids(Field("kind").isIn([Episode.Kind.video])) == ["e0", "e3", "e6", "e9"], "\(engine)")
        let none: Double? = nil
        let half: Double? = 1.5
        #expect(try ids(Field("rating") == none) == ["e4"], "\(engine)")
        #expect(try ids(Field("rating") == half) == ["e3"], "\(engine)")
        #expect(try ids(Field("rating") >= 4.0) == ["e8", "e9"], "\(engine)")
        let explicit = true
        #expect(try ids(Field("explicit") == explicit) == ["e7"], "\(engine)")
        let seconds: Int32 = 120
        #expect(try ids(Field("seconds") <= seconds) == ["e0", "e1", "e2"], "\(engine)")
        #expect(try ids(Field("guid").isIn(Self.guids[1...2])) == ["e1", "e2"], "\(engine)")
        let city: String? = "Oslo"
        #expect(try ids(Field("show.city") == city) == ["e1"], "\(engine)")
        // The literal forms and the explicit `QueryValue` still read the same.
        #expect(try ids(Field("seconds") >= 480 && Field("feedID") == .text("daily")) == ["e8"], "\(engine)")
        #expect(try episodes.count(where: Field("published") > Self.start) == 10, "\(engine)")
        #expect(try episodes.max("published") == Self.episode(9).published.queryValue, "\(engine)")
    }
}

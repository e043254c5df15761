import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// Optional keys (`DefaultsKey<String?>` and every other supported type wrapped in an Optional): a set value reads
/// back as itself, stored natively like the non-optional type, and setting `nil` removes the key.
@Suite struct DefaultsOptionalKeyTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    /// Sets `value` on an optional key, reads it back every way, checks the stored form, then sets `nil`.
    func roundTrip<Wrapped: Codable & Sendable & Equatable>(
        _ value: Wrapped, stored expected: PropertyListValue?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = try fixture.store(durability: .durable)
        let key = DefaultsKey<Wrapped?>("optional\(Wrapped.self)".filter(\.isLetter), default: nil)
        #expect(store[key] == nil, sourceLocation: sourceLocation)
        try store.set(value, for: key)
        #expect(store[key] == value, sourceLocation: sourceLocation)
        #expect(try store.value(for: key) == .some(.some(value)), sourceLocation: sourceLocation)
        if let expected {
            #expect(store.object(forKey: key.name) == expected, sourceLocation: sourceLocation)
        }
        let again = try fixture.store()
        #expect(again[key] == value, sourceLocation: sourceLocation)
        try store.set(nil, for: key)
        #expect(!store.contains(key), sourceLocation: sourceLocation)
        #expect(store.object(forKey: key.name) == nil, sourceLocation: sourceLocation)
        #expect(store[key] == nil, sourceLocation: sourceLocation)
        #expect(try store.value(for: key) == nil, sourceLocation: sourceLocation)
    }

    @Test func everyOptionalTypeRoundTripsAndNilRemoves() throws {
        try roundTrip("n1", stored: .string("n1"))
        try roundTrip(5, stored: .integer(5))
        try roundTrip(true, stored: .bool(true))
        try roundTrip(
            Date(timeIntervalSince1970: 1_700_000_000), stored: .date(Date(timeIntervalSince1970: 1_700_000_000)))
        try roundTrip(Data([1, 2, 3]), stored: .data(Data([1, 2, 3])))
        try roundTrip(["a", "b"], stored: .array([.string("a"), .string("b")]))
        try roundTrip(2.5, stored: .real(2.5))
        try roundTrip(URL(string: "https://example.com/a")!, stored: .string("https://example.com/a"))
        try roundTrip(Profile(name: "Ada", age: 36, tags: ["x"]), stored: nil)
    }

    @Test func optionalCodableIsStoredAsTheJSONOfTheValueNotOfTheOptional() throws {
        let store = try fixture.store()
        let key = DefaultsKey<Profile?>("profile", default: nil)
        let profile = Profile(name: "Ada", age: 36, tags: [])
        try store.set(profile, for: key)
        let plain = DefaultsKey<Profile>("profile", default: Profile(name: "", age: 0, tags: []))
        #expect(try store.value(for: plain) == profile)
    }

    @Test func optionalAndPlainKeysShareOneStoredForm() throws {
        let store = try fixture.store()
        try store.set("dark", for: DefaultsKey<String>("theme", default: "system"))
        #expect(store[DefaultsKey<String?>("theme", default: nil)] == "dark")
        try store.set("light", for: DefaultsKey<String?>("theme", default: nil))
        #expect(store[DefaultsKey<String>("theme", default: "system")] == "light")
    }

    @Test func settingNilFallsBackToTheKeysDefaultAndRegisteredValue() throws {
        let store = try fixture.store()
        let key = DefaultsKey<Int?>("volume", default: 7)
        #expect(store[key] == 7)
        try store.set(3, for: key)
        #expect(store[key] == 3)
        try store.set(nil, for: key)
        #expect(store[key] == 7)
        #expect(!store.contains(key))
        try store.register(4, for: key)
        #expect(store[key] == 4)
        try store.register(nil, for: key)
        #expect(store[key] == 7)
    }

    @Test func nestedOptionalsUnwrapToTheStoredValue() throws {
        let store = try fixture.store()
        let key = DefaultsKey<String??>("nested", default: nil)
        try store.set("x", for: key)
        #expect(store.object(forKey: "nested") == .string("x"))
        #expect(store[key] == "x")
    }

    @Test func anOptionalKeyOfAnotherTypeStillReportsAMismatch() throws {
        let store = try fixture.store()
        try store.set(.string("five"), forKey: "count")
        #expect(throws: StorageError.self) { try store.value(for: DefaultsKey<Int?>("count", default: nil)) }
        #expect(store[DefaultsKey<Int?>("count", default: nil)] == nil)
    }

    @Test func updateOfAnOptionalKeyCanRemoveIt() throws {
        let store = try fixture.store()
        let key = DefaultsKey<Int?>("counter", default: nil)
        #expect(try store.update(key) { ($0 ?? 0) + 1 } == 1)
        #expect(store.object(forKey: "counter") == .integer(1))
        #expect(try store.update(key) { _ in nil } == nil)
        #expect(store.object(forKey: "counter") == nil)
    }
}

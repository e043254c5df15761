import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Synchronization
import Testing

/// The writable subscript, keys that live in their own suite, and key observation with the initial and the old
/// value.
@Suite struct DefaultsKeyFeatureTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test func theSubscriptWritesAndNilRemoves() throws {
        let store = try fixture.store(durability: .durable)
        let theme = DefaultsKey<String>("theme", default: "system")
        store[theme] = "dark"
        #expect(store[theme] == "dark")
        #expect(store.lastSetError == nil)
        #expect(try fixture.store()[theme] == "dark")
        let note = DefaultsKey<String?>("note", default: nil)
        store[note] = "n1"
        #expect(store.object(forKey: "note") == .string("n1"))
        store[note] = nil
        #expect(!store.contains(note))
        store[.launches] += 2
        #expect(store[.launches] == 2)
    }

    @Test func aRefusedSubscriptSetKeepsTheValueAndIsRecorded() throws {
        let store = try fixture.store()
        let secret = DefaultsKey<String>("authToken", default: "")
        store[secret] = "abc"
        #expect(!store.contains(secret))
        #expect(store.lastSetError?.code == .sensitiveKey)
        store[.launches] = 1
        #expect(store.lastSetError == nil)
    }

    @Test func aKeyWithASuiteReadsAndWritesThatSuite() throws {
        let store = try fixture.store(durability: .durable)
        let shared = DefaultsKey<[String]>("recentSearches", default: [], suite: "group.com.example.shared")
        try store.set(["swift"], for: shared)
        #expect(store[shared] == ["swift"])
        #expect(!store.containsValue(forKey: "recentSearches"))
        let group = try fixture.store("group.com.example.shared")
        #expect(group.object(forKey: "recentSearches") == .array([.string("swift")]))
        #expect(FileManager.default.fileExists(atPath: fixture.suitePath("group.com.example.shared")))
        store[shared] = ["swift", "linux"]
        #expect(group[shared] == ["swift", "linux"])
        #expect(try store.update(shared) { $0 + ["x"] } == ["swift", "linux", "x"])
        #expect(try store.value(for: shared) == ["swift", "linux", "x"])
        #expect(store.contains(shared))
        try store.reset(shared)
        #expect(!group.containsValue(forKey: "recentSearches"))
        #expect(!store.contains(shared))
    }

    @Test func aKeyNamedAfterItsOwnSuiteUsesTheStoreItself() throws {
        let store = try fixture.store("group.a", durability: .durable)
        let key = DefaultsKey<Int>("count", default: 0, suite: "group.a")
        try store.set(3, for: key)
        #expect(store.object(forKey: "count") == .integer(3))
    }

    @Test func aBadSuiteNameIsATypedError() throws {
        let store = try fixture.store()
        let key = DefaultsKey<Int>("count", default: 0, suite: "../escape")
        let error = #expect(throws: StorageError.self) { try store.set(1, for: key) }
        #expect(error?.code == .invalidArgument)
        #expect(store[key] == 0)
        store[key] = 2
        #expect(store.lastSetError?.code == .invalidArgument)
        let seen = Mutex<[DefaultsKeyChange<Int>]>([])
        let observation = store.observe(key, options: [.initial]) { change in seen.withLock { $0.append(change) } }
        try store.set(5, for: DefaultsKey<Int>("count", default: 0))
        #expect(seen.withLock { $0 } == [DefaultsKeyChange(oldValue: nil, newValue: 0)])
        observation.cancel()
    }

    @Test func keysInTwoSuitesAreTwoKeys() {
        let plain = DefaultsKey<Int>("count", default: 0)
        let grouped = DefaultsKey<Int>("count", default: 0, suite: "group.a")
        #expect(plain != grouped)
        #expect(grouped.suite == "group.a")
        #expect(plain.suite == nil)
    }

    @Test func observationDeliversTheInitialAndTheOldValue() throws {
        let store = try fixture.store()
        try store.set(1, for: .launches)
        let seen = Mutex<[DefaultsKeyChange<Int>]>([])
        let observation = store.observe(.launches, options: [.initial]) { change in
            seen.withLock { $0.append(change) }
        }
        #expect(seen.withLock { $0 } == [DefaultsKeyChange(oldValue: nil, newValue: 1)])
        try store.set(5, for: .launches)
        try store.update(.launches) { $0 + 1 }
        try store.reset(.launches)
        #expect(
            seen.withLock { $0 } == [
                DefaultsKeyChange(oldValue: nil, newValue: 1), DefaultsKeyChange(oldValue: 1, newValue: 5),
                DefaultsKeyChange(oldValue: 5, newValue: 6), DefaultsKeyChange(oldValue: 6, newValue: 0),
            ])
        observation.cancel()
        try store.set(9, for: .launches)
        #expect(seen.withLock { $0.count } == 4)
    }

    @Test func observationWithoutInitialWaitsForAChange() throws {
        let store = try fixture.store()
        let seen = Mutex<[DefaultsKeyChange<Int>]>([])
        let observation = store.observe(.launches, options: []) { change in seen.withLock { $0.append(change) } }
        #expect(seen.withLock { $0 }.isEmpty)
        store[.launches] = 3
        #expect(seen.withLock { $0 } == [DefaultsKeyChange(oldValue: 0, newValue: 3)])
        _ = observation
    }

    @Test func observationOfASuiteKeySeesWritesThroughThatSuite() throws {
        let store = try fixture.store()
        let key = DefaultsKey<String>("mode", default: "a", suite: "group.b")
        let seen = Mutex<[DefaultsKeyChange<String>]>([])
        let observation = store.observe(key, options: [.initial]) { change in seen.withLock { $0.append(change) } }
        let group = try fixture.store("group.b")
        try group.set("b", for: key)
        #expect(
            seen.withLock { $0 } == [
                DefaultsKeyChange(oldValue: nil, newValue: "a"), DefaultsKeyChange(oldValue: "a", newValue: "b"),
            ])
        _ = observation
    }
}

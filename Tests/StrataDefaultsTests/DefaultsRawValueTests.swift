import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Synchronization
import Testing

/// A string-backed enum, as apps declare themes.
enum Theme: String, Codable, Sendable, CaseIterable {
    case system, dark, light
}

/// An integer-backed enum.
enum Quality: Int, Codable, Sendable {
    case low = 1, high = 3
}

/// A raw-representable struct backed by `Data` (a key fingerprint, say).
struct Fingerprint: RawRepresentable, Codable, Hashable, Sendable {
    var rawValue: Data
}

/// A raw-representable struct backed by `Int`.
struct Rank: RawRepresentable, Codable, Hashable, Sendable {
    var rawValue: Int
}

/// An enum backed by a narrower integer type than `Int`.
enum Channel: UInt8, Codable, Sendable {
    case left = 1, right = 2
}

extension DefaultsKey where Value == Theme {
    static let theme = DefaultsKey("theme", default: .system)
}

/// Raw-representable values (`enum Theme: String`) are stored as their raw value, so a `DefaultsKey<String>`, the
/// command-line tool and any plist reader see `"dark"`; values stored the old way (JSON in `<data>`) still read; a
/// value that is no raw value of the type is a type mismatch, reported by every read API.
@Suite struct DefaultsRawValueTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test func anEnumIsStoredAsItsRawValueAndReadsAsThatType() throws {
        let store = try fixture.store(durability: .durable)
        try store.set(.dark, for: .theme)
        #expect(store.object(forKey: "theme") == .string("dark"))
        #expect(try store.value(for: DefaultsKey<String>("theme", default: "")) == "dark")
        #expect(store[.theme] == .dark)

        try store.set(.high, for: DefaultsKey<Quality>("quality", default: .low))
        #expect(store.object(forKey: "quality") == .integer(3))
        #expect(store[DefaultsKey<Int>("quality", default: 0)] == 3)

        try store.set(.right, for: DefaultsKey<Channel>("channel", default: .left))
        #expect(store.object(forKey: "channel") == .integer(2))
        #expect(store[DefaultsKey<Channel>("channel", default: .left)] == .right)

        try store.set(Theme.light, for: DefaultsKey<Theme?>("optionalTheme", default: nil))
        #expect(store.object(forKey: "optionalTheme") == .string("light"))
        #expect(store[DefaultsKey<Theme?>("optionalTheme", default: nil)] == .light)
        try store.set(nil, for: DefaultsKey<Theme?>("optionalTheme", default: nil))
        #expect(store.object(forKey: "optionalTheme") == nil)

        // A string written by anyone else reads as the enum.
        try store.set("light", for: DefaultsKey<String>("theme", default: ""))
        #expect(store[.theme] == .light)
        #expect(try store.update(.theme) { $0 == .light ? .dark : .light } == .dark)
        #expect(store.object(forKey: "theme") == .string("dark"))
    }

    /// Another program reads the suite file: the toolchain's `plutil` sees a string, not base64 JSON.
    @Test func anotherProgramReadsTheRawValue() throws {
        let store = try fixture.store(durability: .durable, format: .xml)
        try store.set(.dark, for: .theme)
        let text = try String(contentsOfFile: fixture.suitePath(), encoding: .utf8)
        #expect(text.contains("<string>dark</string>"), "\(text)")
        guard let plutil = DefaultsFileTests.plutil else { return }
        let json = try ChildProcess.run(
            URL(fileURLWithPath: plutil), ["-convert", "json", "-o", "-", fixture.suitePath()])
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.standardOutput.contains("\"dark\""), "\(json.standardOutput)")
    }

    /// Values stored before raw values were native: a JSON encoding in `<data>` still reads as the type.
    @Test func theOldJSONFormStillReads() throws {
        let store = try fixture.store()
        try store.set(.data(JSONEncoder().encode(Theme.dark)), forKey: "theme")
        try store.set(.data(JSONEncoder().encode(Quality.high)), forKey: "quality")
        try store.set(.data(JSONEncoder().encode(Theme?.some(.light))), forKey: "optionalTheme")
        #expect(try store.value(for: .theme) == .dark)
        #expect(store[.theme] == .dark)
        #expect(store.typeMismatch(for: .theme) == nil)
        #expect(store[DefaultsKey<Quality>("quality", default: .low)] == .high)
        #expect(store[DefaultsKey<Theme?>("optionalTheme", default: nil)] == .light)
        // The next write stores the raw value.
        #expect(try store.update(.theme) { _ in .light } == .light)
        #expect(store.object(forKey: "theme") == .string("light"))
    }

    /// A string that names no case, or a value of another type: never the default in silence.
    @Test(arguments: [PropertyListValue.string("purple"), .integer(1), .data(Data([0xFF]))])
    func aValueThatIsNotARawValueIsATypeMismatch(stored: PropertyListValue) throws {
        let store = try fixture.store()
        try store.set(stored, forKey: "theme")
        let error = try #require(throws: StorageError.self) { try store.value(for: .theme) }
        #expect(error.code == .typeMismatch)
        #expect(error.key == "theme" && error.tier == .defaults)
        #expect(error.message.contains("Theme"), "\(error)")
        #expect(store.typeMismatch(for: .theme)?.code == .typeMismatch)
        #expect(store[.theme] == .system)
        #expect(store.lastReadError?.code == .typeMismatch, "the subscript's default is reported")
        #expect(store.lastReadError?.key == "theme")
        #expect(store.object(forKey: "theme") == stored, "left as it is")
    }
}

/// A typed observer of a key whose stored value is not of its type: the change carries the mismatch beside the
/// default, at once and on each change.
@Suite struct DefaultsObservedMismatchTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test func anObservedValueOfAnotherTypeCarriesTheMismatch() throws {
        let store = try fixture.store()
        try store.set(.string("purple"), forKey: "theme")
        let seen = Mutex<[DefaultsKeyChange<Theme>]>([])
        let observation = store.observe(.theme, options: [.initial]) { change in seen.withLock { $0.append(change) } }
        defer { observation.cancel() }
        try store.set(.integer(7), forKey: "theme")
        try store.set(.dark, for: .theme)
        let changes = seen.withLock { $0 }
        #expect(changes.map(\.newValue) == [.system, .system, .dark])
        #expect(changes[0].typeMismatch?.code == .typeMismatch && changes[0].typeMismatch?.key == "theme")
        #expect(changes[0].typeMismatch?.message.contains("purple") == true)
        #expect(changes[1].typeMismatch?.code == .typeMismatch)
        #expect(changes[2].typeMismatch == nil)
    }
}

/// Collections of raw-representable values — arrays, sets, string-keyed dictionaries, nested — are plist collections
/// of raw values, as `[String]` is; their old JSON form still reads; collections of other `Codable`s stay JSON.
@Suite struct DefaultsRawCollectionTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test func anArrayOfEnumsIsAnArrayOfRawValues() throws {
        let store = try fixture.store(durability: .durable, format: .xml)
        let themes = DefaultsKey<[Theme]>("themes", default: [])
        try store.set([.dark, .light], for: themes)
        #expect(store.object(forKey: "themes") == .array([.string("dark"), .string("light")]))
        #expect(store[DefaultsKey<[String]>("themes", default: [])] == ["dark", "light"])
        #expect(store[themes] == [.dark, .light])
        let text = try String(contentsOfFile: fixture.suitePath(), encoding: .utf8)
        #expect(text.contains("<string>dark</string>"), "\(text)")

        let byFeed = DefaultsKey<[String: Quality]>("quality", default: [:])
        try store.set(["daily": .high, "weekly": .low], for: byFeed)
        #expect(store.object(forKey: "quality") == .dictionary(["daily": .integer(3), "weekly": .integer(1)]))
        #expect(store[byFeed] == ["daily": .high, "weekly": .low])

        let chosen = DefaultsKey<Set<Theme>>("chosen", default: [])
        try store.set([.light, .dark, .system], for: chosen)
        #expect(store.object(forKey: "chosen") == .array([.string("dark"), .string("light"), .string("system")]))
        #expect(store[chosen] == [.system, .dark, .light])

        let nested = DefaultsKey<[[Theme]]>("nested", default: [])
        try store.set([[.dark], [.light, .system]], for: nested)
        #expect(
            store.object(forKey: "nested")
                == .array([.array([.string("dark")]), .array([.string("light"), .string("system")])]))
        #expect(store[nested] == [[.dark], [.light, .system]])
    }

    @Test func theOldJSONFormStillReadsAndOtherElementsStayJSON() throws {
        let store = try fixture.store()
        try store.set(.data(JSONEncoder().encode([Theme.dark])), forKey: "themes")
        #expect(store[DefaultsKey<[Theme]>("themes", default: [])] == [.dark])
        #expect(store.lastReadError == nil)

        let optional = DefaultsKey<[Theme?]>("maybe", default: [])
        try store.set([.dark, nil], for: optional)
        guard case .data = store.object(forKey: "maybe") else {
            Issue.record("optional elements are JSON: a plist array holds no nil")
            return
        }
        #expect(store[optional] == [.dark, nil])
    }

    /// A set is written in one order whatever its hash seed or history: a set of 4-byte values (whose descriptions,
    /// `data(4 bytes)`, are all alike) sorted by their bytes, integers by their value.
    @Test func aSetIsWrittenInOneOrderWhateverItsHistory() throws {
        let store = try fixture.store()
        let key = DefaultsKey<Set<Fingerprint>>("fingerprints", default: [])
        let fingerprints = (0..<12).map { Fingerprint(rawValue: Data([UInt8(47 &* $0 % 12), 0, 0, 1])) }
        var forms: [PropertyListValue?] = []
        for capacity in [0, 16, 64, 512] {
            var set = Set<Fingerprint>(minimumCapacity: capacity)
            for fingerprint in fingerprints.reversed() { set.insert(fingerprint) }
            try store.set(set, for: key)
            forms.append(store.object(forKey: "fingerprints"))
            #expect(store[key] == set)
        }
        let sorted = fingerprints.map(\.rawValue).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(forms.allSatisfy { $0 == .array(sorted.map { .data($0) }) }, "\(forms)")

        let ranks = DefaultsKey<Set<Rank>>("ranks", default: [])
        try store.set([Rank(rawValue: 10), Rank(rawValue: 9), Rank(rawValue: -1)], for: ranks)
        #expect(store.object(forKey: "ranks") == .array([.integer(-1), .integer(9), .integer(10)]))
    }

    @Test func anElementThatIsNotARawValueIsATypeMismatch() throws {
        let store = try fixture.store()
        try store.set(.array([.string("dark"), .string("purple")]), forKey: "themes")
        let error = try #require(throws: StorageError.self) {
            try store.value(for: DefaultsKey<[Theme]>("themes", default: []))
        }
        #expect(error.code == .typeMismatch && error.key == "themes")
        #expect(error.message.contains("purple"), "\(error)")
    }
}

/// Raw `Data` read through a `DefaultsKey<String>`: the subscript returns the key's default and says why.
@Suite struct DefaultsSubscriptMismatchTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test func rawDataUnderAStringKeyIsReportedNotSilentlyTheDefault() throws {
        let store = try fixture.store()
        let key = DefaultsKey<String>("greeting", default: "hello")
        try store.set(.data(Data("bonjour".utf8)), forKey: "greeting")
        #expect(store.lastReadError == nil)
        #expect(store[key] == "hello")
        let error = try #require(store.lastReadError)
        #expect(error.code == .typeMismatch)
        #expect(error.key == "greeting" && error.tier == .defaults)
        #expect(error.message.contains("data"), "\(error)")
        #expect(error.recovery?.isEmpty == false)
        #expect(throws: StorageError.self) { try store.value(for: key) }
        // A read that finds its type, or nothing, clears it.
        #expect(store[DefaultsKey<Data>("greeting", default: Data())] == Data("bonjour".utf8))
        #expect(store.lastReadError == nil)
        _ = store[key]
        #expect(store.lastReadError != nil)
        _ = store[DefaultsKey<String>("unset", default: "")]
        #expect(store.lastReadError == nil)
    }
}

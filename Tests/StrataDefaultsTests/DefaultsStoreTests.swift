import Foundation
import StrataConformance
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

struct Profile: Codable, Sendable, Equatable {
    var name: String
    var age: Int
    var tags: [String]
}

extension DefaultsKey where Value == Bool {
    static let onboarded = DefaultsKey("hasCompletedOnboarding", default: false)
}
extension DefaultsKey where Value == Int {
    static let launches = DefaultsKey("launchCount", default: 0)
}

/// A temporary store root, and stores opened in it that do not watch (tests call `refresh()` themselves
/// where they need it) unless asked.
struct Fixture {
    let directory: TemporaryDirectory
    var root: String { directory.appending("root") }

    init() throws { directory = try TemporaryDirectory(prefix: "strata-defaults") }

    func store(
        _ suite: String = "standard", durability: DefaultsConfiguration.Durability = .coalesced(.milliseconds(20)),
        format: PropertyListFormat = .binary, watching: Bool = false
    ) throws -> DefaultsStore {
        try DefaultsStore(
            suite: suite, root: root,
            configuration: DefaultsConfiguration(
                durability: durability, format: format, watchesExternalChanges: watching))
    }

    func suitePath(_ suite: String = "standard") -> String { root + "/defaults/\(suite).plist" }
}

@Suite("DefaultsStore: values and keys")
struct DefaultsValueTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func everyValueTypeRoundTripsThroughTheFile() throws {
        let date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
        let profile = Profile(name: "Ada", age: 36, tags: ["math", "engines"])
        do {
            let store = try fixture.store()
            try store.set(true, for: DefaultsKey("bool", default: false))
            try store.set(-42, for: DefaultsKey("int", default: 0))
            try store.set(Int.max, for: DefaultsKey("max", default: 0))
            try store.set(3.25, for: DefaultsKey("double", default: 0.0 as Double))
            try store.set("héllo, 世界 🌍", for: DefaultsKey("string", default: ""))
            try store.set(Data([0, 1, 2, 255]), for: DefaultsKey("data", default: Data()))
            try store.set(date, for: DefaultsKey("date", default: Date.distantPast))
            try store.set(
                URL(string: "https://example.com/a?b=c")!, for: DefaultsKey("url", default: URL(string: "x:")!))
            try store.set(["a", "b"], for: DefaultsKey("array", default: [String]()))
            try store.set(["x": 1, "y": 2], for: DefaultsKey("dict", default: [String: Int]()))
            try store.set(profile, for: DefaultsKey("profile", default: Profile(name: "", age: 0, tags: [])))
            try store.flush()
        }
        let reopened = try fixture.store()
        #expect(reopened[DefaultsKey("bool", default: false)] == true)
        #expect(reopened[DefaultsKey("int", default: 0)] == -42)
        #expect(reopened[DefaultsKey("max", default: 0)] == Int.max)
        #expect(reopened[DefaultsKey("double", default: 0.0 as Double)] == 3.25)
        #expect(reopened[DefaultsKey("string", default: "")] == "héllo, 世界 🌍")
        #expect(reopened[DefaultsKey("data", default: Data())] == Data([0, 1, 2, 255]))
        #expect(reopened[DefaultsKey("date", default: Date.distantPast)] == date)
        #expect(reopened[DefaultsKey("url", default: URL(string: "x:")!)] == URL(string: "https://example.com/a?b=c"))
        #expect(reopened[DefaultsKey("array", default: [String]())] == ["a", "b"])
        #expect(reopened[DefaultsKey("dict", default: [String: Int]())] == ["x": 1, "y": 2])
        #expect(reopened[DefaultsKey("profile", default: Profile(name: "", age: 0, tags: []))] == profile)
        #expect(reopened.allKeys.count == 11)
    }

    @Test func unsetIsNotFalse() throws {
        let store = try fixture.store()
        #expect(try store.value(for: .onboarded) == nil)
        #expect(store[.onboarded] == false)
        #expect(!store.contains(.onboarded))
        try store.set(false, for: .onboarded)
        #expect(try store.value(for: .onboarded) == false)
        #expect(store.contains(.onboarded))
        try store.reset(.onboarded)
        #expect(try store.value(for: .onboarded) == nil)
        try store.flush()
        #expect(try fixture.store().value(for: .onboarded) == nil)
    }

    @Test func registeredDefaultsLayerUnderSetValues() throws {
        let store = try fixture.store()
        try store.register(7, for: .launches)
        #expect(store[.launches] == 7)
        #expect(try store.value(for: .launches) == 7)
        #expect(!store.contains(.launches), "a registered default is not a set value")
        try store.set(9, for: .launches)
        #expect(store[.launches] == 9)
        try store.reset(.launches)
        #expect(store[.launches] == 7)
        try store.flush()
        #expect(try fixture.store()[.launches] == 0, "registered defaults are never written")
    }

    @Test func typeMismatchIsTypedAndSubscriptFallsBack() throws {
        let store = try fixture.store()
        try store.set(.string("not a number"), forKey: "launchCount")
        let error = #expect(throws: StorageError.self) { try store.value(for: .launches) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == "launchCount")
        #expect(error?.message.contains("string, not a Int") == true)
        #expect(store[.launches] == 0)
    }

    @Test(arguments: [
        "authToken", "api_key", "userPassword", "DB-Secret", "refresh_tokens", "sessionKey", "HTTPCookie",
    ])
    func credentialKeysAreRefusedAndNameSecrets(_ name: String) throws {
        let store = try fixture.store()
        let error = #expect(throws: StorageError.self) { try store.set(.string("x"), forKey: name) }
        #expect(error?.code == .sensitiveKey)
        #expect(error?.suggestedTier == .secrets)
        #expect(error?.description.contains("secrets tier") == true)
        #expect(!store.containsValue(forKey: name))
    }

    @Test(arguments: ["tokenizerMode", "selectedTheme", "passwordlessLogin", "secretaryName", "keyboardLayout"])
    func harmlessKeysAreAccepted(_ name: String) throws {
        try fixture.store().set(.bool(true), forKey: name)
    }

    @Test func sensitiveNamesCanBeAllowedExplicitly() throws {
        let store = try fixture.store()
        try store.set("bpe", for: DefaultsKey("tokenStyle", default: "", allowsSensitiveName: true))
        try store.set(.string("x"), forKey: "api_key", allowingSensitiveName: true)
        let configured = try DefaultsStore(
            suite: "other", root: fixture.root,
            configuration: DefaultsConfiguration(
                allowedSensitiveKeys: ["showPasswordHints"], watchesExternalChanges: false))
        try configured.set(.bool(true), forKey: "showPasswordHints")
    }

    @Test func oversizeValueAndSuiteAreRefusedWithFilesSuggested() throws {
        let store = try fixture.store()
        let big = #expect(throws: StorageError.self) { try store.set(.data(Data(count: 70_000)), forKey: "avatar") }
        #expect(big?.code == .tooLarge)
        #expect(big?.suggestedTier == .files)
        #expect(big?.description.contains("files tier") == true)
        #expect(!store.containsValue(forKey: "avatar"))
        // Twenty 60 KB values fit the value limit but not the 1 MiB suite budget.
        var refused: StorageError?
        for index in 0..<20 {
            do { try store.set(.data(Data(count: 60_000)), forKey: "chunk\(index)") } catch let error as StorageError {
                refused = error
                break
            }
        }
        #expect(refused?.code == .tooLarge)
        #expect(refused?.message.contains("budget") == true)
        let kept = store.allKeys.count
        #expect(kept >= 16 && kept < 20)
        try store.flush()
        #expect(try fixture.store().allKeys.count == kept, "what was accepted before the refusal is kept")
        try store.removeObject(forKey: "chunk0")  // Shrinking is always allowed.
    }

    @Test func badSuiteNamesAreRefused() throws {
        for name in ["", "../escape", "a/b", "nul\0"] {
            let error = #expect(throws: StorageError.self) { try fixture.store(name) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func suitesAreSeparateFiles() throws {
        let standard = try fixture.store()
        let shared = try fixture.store("group.com.example.shared")
        try standard.set(.integer(1), forKey: "a")
        try shared.set(.integer(2), forKey: "a")
        try standard.flush()
        try shared.flush()
        #expect(FileManager.default.fileExists(atPath: fixture.suitePath("group.com.example.shared")))
        #expect(try fixture.store()[DefaultsKey("a", default: 0)] == 1)
        #expect(try fixture.store("group.com.example.shared")[DefaultsKey("a", default: 0)] == 2)
    }

    @Test func fileIsPrivate() throws {
        let store = try fixture.store()
        try store.set(.integer(1), forKey: "a")
        try store.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.suitePath())
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(
            try FileManager.default.attributesOfItem(atPath: fixture.root + "/defaults")[.posixPermissions] as? Int
                == 0o700)
    }
}

@Suite("DefaultsStore: persistence")
struct DefaultsPersistenceTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func aBurstOfSetsMakesOneWrite() throws {
        let store = try fixture.store(durability: .coalesced(.seconds(30)))
        for index in 0..<1000 { try store.set(.integer(Int64(index)), forKey: "k\(index)") }
        #expect(!FileManager.default.fileExists(atPath: fixture.suitePath()), "no write before the flush")
        try store.flush()
        let data = try #require(FileManager.default.contents(atPath: fixture.suitePath()))
        guard case .dictionary(let dictionary) = try PropertyListFormat.decode(data) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(dictionary.count == 1000)
        #expect(dictionary["k999"] == .integer(999))
    }

    @Test func coalescedWritesHappenByThemselves() async throws {
        let store = try fixture.store(durability: .coalesced(.milliseconds(10)))
        try store.set(.string("soon"), forKey: "later")
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: fixture.suitePath()) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try fixture.store()[DefaultsKey("later", default: "")] == "soon")
    }

    @Test func immediateSetsAreOnDiskWhenTheyReturn() throws {
        let store = try fixture.store(durability: .durable)
        try store.set(.string("now"), forKey: "k")
        #expect(try fixture.store()[DefaultsKey("k", default: "")] == "now")
    }

    @Test func pendingSetsAreWrittenAtNormalExit() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(child, ["defaults-set", fixture.root, "standard", "greeting", "bye"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try fixture.store()[DefaultsKey("greeting", default: "")] == "bye")
    }

    @Test func twoStoresMergePerKey() throws {
        let first = try fixture.store(durability: .coalesced(.seconds(30)))
        let second = try fixture.store(durability: .coalesced(.seconds(30)))
        try first.set(.integer(1), forKey: "a")
        try second.set(.integer(2), forKey: "b")
        try first.flush()
        try second.flush()  // Re-reads the file `first` wrote and keeps its key.
        try first.set(.integer(3), forKey: "c")
        try first.flush()
        let final = try fixture.store()
        #expect(final.dictionaryRepresentation() == ["a": .integer(1), "b": .integer(2), "c": .integer(3)])
        #expect(second.object(forKey: "a") == .integer(1), "the second writer now sees the first's key")
    }

    @Test func removalsPropagate() throws {
        let store = try fixture.store()
        try store.set(.integer(1), forKey: "a")
        try store.set(.integer(2), forKey: "b")
        try store.flush()
        #expect(try store.removeObject(forKey: "a"))
        #expect(try !store.removeObject(forKey: "a"))
        try store.flush()
        #expect(try fixture.store().allKeys == ["b"])
        try store.removeAll()
        try store.flush()
        #expect(try fixture.store().allKeys.isEmpty)
    }

    @Test func xmlFormatIsWrittenAndBothAreRead() throws {
        let store = try fixture.store(format: .xml)
        try store.set(.string("a & <b>"), forKey: "text")
        try store.set(.array([.integer(1), .real(2.5), .bool(false)]), forKey: "list")
        try store.flush()
        let content = try String(contentsOfFile: fixture.suitePath(), encoding: .utf8)
        #expect(content.hasPrefix("<?xml"))
        #expect(content.contains("<string>a &amp; &lt;b&gt;</string>"))
        let binary = try fixture.store()
        #expect(binary.object(forKey: "text") == .string("a & <b>"))
        try binary.set(.integer(1), forKey: "more")
        try binary.flush()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())).starts(with: Array("bplist00".utf8)))
    }

    @Test func closedStoreRefusesSets() throws {
        let store = try fixture.store()
        try store.set(.integer(1), forKey: "a")
        try store.close()
        let error = #expect(throws: StorageError.self) { try store.set(.integer(2), forKey: "a") }
        #expect(error?.code == .closed)
        #expect(try fixture.store().object(forKey: "a") == .integer(1))
    }
}

@Suite("DefaultsStore: StorageBackend conformance")
struct DefaultsConformanceTests {
    @Test(arguments: BackendConformance.checkIDs)
    func conformance(_ check: String) async throws {
        let fixture = try Fixture()
        try await BackendConformance.run(check, options: BackendConformance.Options(largeValueSize: 48 << 10)) {
            try fixture.store()
        }
    }

    /// Not a binary plist: the documented byte form, named by the metadata's content type.
    @Test func byteLevelReadOfANonDataValueIsItsByteForm() throws {
        let fixture = try Fixture()
        let store = try fixture.store()
        try store.set(.integer(5), forKey: "n")
        try store.set(.string("dark"), forKey: "theme")
        #expect(try store.data(for: "n") == Data("5".utf8))
        #expect(try store.data(for: "theme") == Data("dark".utf8))
        #expect(try store.metadata(for: "n")?.contentType == "application/vnd.strata.integer")
        #expect(try store.metadata(for: "theme")?.size == 4)
        try store.put(Data([1, 2]), for: "raw")
        #expect(try store.metadata(for: "raw")?.contentType == nil)
    }
}

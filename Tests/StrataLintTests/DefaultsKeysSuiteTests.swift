import Foundation
import KeysSample
import StrataDefaults
import StrataLint
import StrataTestSupport
import Testing

/// The key manifest's `"suite"` field: the generated key lives in that suite, not only in a doc comment.
@Suite struct DefaultsKeysSuiteTests {
    @Test func theGeneratedKeyCarriesItsSuite() throws {
        let source = try DefaultsKeysGenerator.generate(
            manifest: Data(
                #"{ "keys": [ { "name": "count", "type": "Int", "default": 0, "suite": "group.a\"b" } ] }"#.utf8),
            file: "defaults-keys.json")
        #expect(source.contains(#"DefaultsKey<Int>("count", default: 0, suite: "group.a\"b")"#), "\(source)")
    }

    @Test(arguments: ["3", "\"\"", "\"a/b\"", "\"a\\nb\""])
    func aSuiteThatIsNotASuiteNameIsRefused(suite: String) throws {
        let problem = #expect(throws: DefaultsKeysGenerator.Problem.self) {
            try DefaultsKeysGenerator.generate(
                manifest: Data(
                    #"{ "keys": [ { "name": "count", "type": "Int", "default": 0, "suite": \#(suite) } ] }"#.utf8),
                file: "defaults-keys.json")
        }
        #expect(problem?.entry == "key 'count'")
    }

    @Test func theSampleKeyReadsAndWritesItsSuite() throws {
        #expect(DefaultsKey<[String]>.recentSearches.suite == "group.com.example.shared")
        #expect(DefaultsKey<String>.selectedTheme.suite == nil)
        let directory = try TemporaryDirectory()
        let root = directory.appending("root")
        let store = try DefaultsStore(root: root)
        store[.recentSearches] = ["notes"]
        try store.flush()
        #expect(!store.containsValue(forKey: "recentSearches"))
        let shared = try DefaultsStore(suite: "group.com.example.shared", root: root)
        #expect(shared.object(forKey: "recentSearches") == .array([.string("notes")]))
        let preferences = Preferences(store: store)
        try preferences.recordSearch("swift")
        try preferences.recordSearch("notes")
        #expect(preferences.recentSearches == ["notes", "swift"])
        #expect(shared.object(forKey: "recentSearches") == .array([.string("notes"), .string("swift")]))
        #expect(!store.containsValue(forKey: "recentSearches"))
    }
}

import Foundation
import KeysSample
import StrataDefaults
import StrataLint
import StrataTestSupport
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

@Suite("storage-lint")
struct StorageLintTests {
    @Test func findsEachViolationAtItsLine() throws {
        let findings = try StorageLinter().lint(paths: [fixtures + "/Violations.swift"])
        let found = Set(findings.map { "\($0.line) \($0.rule.rawValue)" })
        let expected: Set<String> = [
            "6 direct-userdefaults", "9 string-literal-key", "10 credential-in-defaults", "11 large-value-in-defaults",
            "15 unset-reads-as-false", "22 delete-then-add",
        ]
        #expect(found == expected, "\(findings.map(\.description))")
        #expect(Set(findings.map(\.rule)) == Set(LintRule.allCases), "every rule has a fixture")
        #expect(findings.first?.description.hasPrefix(fixtures + "/Violations.swift:6: direct-userdefaults: ") == true)
    }

    @Test func cleanFilesAndTheWrapperPass() throws {
        #expect(
            try StorageLinter().lint(paths: [fixtures + "/Clean.swift", fixtures + "/UserDefaultsStorage.swift"])
                .isEmpty)
    }

    @Test func ignoreCommentsSilenceALine() {
        let source = "let d = UserDefaults.standard // storage-lint: ignore\nlet e = UserDefaults.standard\n"
        #expect(StorageLinter().lint(file: "x.swift", source: source).map(\.line) == [2])
    }

    @Test func strataLintToolExitsNonZeroWhenStrict() throws {
        let tool = try TestExecutables.url(named: "strata-lint")
        let strict = try ChildProcess.run(tool, [fixtures, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.standardOutput.split(separator: "\n").count == 6)
        #expect(try ChildProcess.run(tool, [fixtures]).status == 0)
        #expect(try ChildProcess.run(tool, [fixtures + "/Clean.swift", "--strict"]).status == 0)
        let cli = try ChildProcess.run(try TestExecutables.url(named: "strata"), ["lint", fixtures, "--strict"])
        #expect(cli.status == 1, "\(cli.standardError)")
        #expect(cli.standardOutput.contains("Violations.swift:22: delete-then-add"))
    }
}

@Suite("DefaultsKeysPlugin")
struct DefaultsKeysTests {
    @Test func generatedKeysWorkThroughStrataDefaults() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(
            root: directory.path, configuration: DefaultsConfiguration(watchesExternalChanges: false))
        let preferences = Preferences(store: store)
        #expect(preferences.hasCompletedOnboarding == nil)
        #expect(preferences.selectedTheme == "system")
        #expect(try preferences.recordLaunch() == 1)
        #expect(try preferences.recordLaunch() == 2)
        try preferences.setTheme("dark")
        // The generated declarations themselves, with their defaults.
        #expect(DefaultsKey<Bool>.hasCompletedOnboarding.defaultValue == false)
        #expect(DefaultsKey<[String]>.recentSearches.defaultValue == [])
        #expect(DefaultsKey<String>.tokenizerMode.allowsSensitiveName)
        try store.set("sentences", for: .tokenizerMode)
        #expect(store[.selectedTheme] == "dark")
    }

    func generate(_ json: String) throws -> ChildProcess.Result {
        let directory = try TemporaryDirectory()
        let manifest = directory.appending("defaults-keys.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: manifest))
        return try ChildProcess.run(
            try TestExecutables.url(named: "strata-keygen"), [manifest, directory.appending("Keys.swift")])
    }

    @Test(arguments: [
        (
            #"{"keys": [{"name": "a", "type": "Int", "default": 1}, {"name": "a", "type": "Int", "default": 2}]}"#,
            "key 'a': the name is declared twice"
        ),
        (#"{"keys": [{"name": "a", "type": "Float80", "default": 1}]}"#, "key 'a': unknown type 'Float80'"),
        (#"{"keys": [{"name": "a", "type": "Bool", "default": "yes"}]}"#, "key 'a': the default yes is not a Bool"),
        (#"{"keys": [{"name": "count", "type": "Int", "default": true}]}"#, "key 'count': the default"),
        (
            #"{"keys": [{"name": "apiToken", "type": "String", "default": ""}]}"#,
            "key 'apiToken': the name looks like a credential"
        ),
        (#"{"keys": [{"name": "a b", "type": "String", "default": ""}]}"#, "must be a Swift identifier"),
        (#"[1, 2]"#, "must be a JSON object"),
    ])
    func badManifestsFailNamingFileAndEntry(_ json: String, _ message: String) throws {
        let result = try generate(json)
        #expect(result.status == 1)
        #expect(result.standardError.contains("defaults-keys.json: error: "), "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func goodManifestGeneratesTypedKeys() throws {
        let directory = try TemporaryDirectory()
        let manifest = directory.appending("defaults-keys.json")
        try Data(#"{"keys": [{"name": "volume", "type": "Double", "default": 0.5, "doc": "Playback volume."}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let output = directory.appending("Keys.swift")
        #expect(try ChildProcess.run(try TestExecutables.url(named: "strata-keygen"), [manifest, output]).status == 0)
        let source = try String(contentsOfFile: output, encoding: .utf8)
        #expect(source.contains("extension DefaultsKey where Value == Double {"))
        #expect(source.contains("/// Playback volume."))
        #expect(source.contains(#"public static let volume = DefaultsKey<Double>("volume", default: 0.5)"#))
    }
}

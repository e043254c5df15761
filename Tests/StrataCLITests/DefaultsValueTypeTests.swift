import Foundation
import StrataTestSupport
import Testing

/// Issue 16 item 6: `strata defaults set` keeps the type of the value it replaces and says what it stored;
/// `defaults get` prints a structured value (JSON data, a dictionary, an array) as JSON.
@Suite("strata CLI: defaults values keep their type")
struct DefaultsValueTypeTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-types")
        #expect(try strata(["init", root]).status == 0)
    }

    func set(_ key: String, _ value: String, _ options: [String] = []) throws -> ChildProcess.Result {
        try strata(["defaults", "set", key, value, "--root", root] + options)
    }

    @Test(arguments: [
        ("launchCount", "5", "int", "7", "stored launchCount = 7 (integer)"),
        ("ratio", "1.5", "double", "2", "stored ratio = 2.0 (real)"),
        ("enabled", "true", "bool", "no", "stored enabled = false (bool)"),
        (
            "since", "2026-01-01T00:00:00Z", "date", "2027-02-03T04:05:06.5Z",
            "stored since = 2027-02-03T04:05:06.5Z (date)"
        ),
        ("theme", "dark", "string", "42", "stored theme = 42 (string)"),
    ])
    func aNewValueTakesTheTypeOfTheOldOne(key: String, first: String, type: String, second: String, said: String)
        throws
    {
        #expect(try set(key, first, ["--type", type]).status == 0)
        let result = try set(key, second)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == said + "\n")
        #expect(result.standardOutput.isEmpty, "scripts read standard output; the note goes to standard error")
    }

    @Test(arguments: [
        ("launchCount", "5", "int", "five", "integer"), ("ratio", "1.5", "double", "x", "real"),
        ("enabled", "true", "bool", "maybe", "bool"), ("since", "2026-01-01T00:00:00Z", "date", "tomorrow", "date"),
    ])
    func aValueThatDoesNotReadAsTheOldTypeIsAUsageError(
        key: String, first: String, type: String, second: String, typeName: String
    ) throws {
        #expect(try set(key, first, ["--type", type]).status == 0)
        let result = try set(key, second)
        #expect(result.status == 2)
        #expect(result.standardError.contains("'\(second)'") && result.standardError.contains(typeName))
        #expect(result.standardError.contains(key) && result.standardError.contains("--type"))
        #expect(try strata(["defaults", "get", key, "--root", root]).standardOutput == first + "\n", "unchanged")
        // --type says what the user means.
        let forced = try set(key, second, ["--type", "string"])
        #expect(forced.status == 0)
        #expect(forced.standardError == "stored \(key) = \(second) (string)\n")
    }

    /// Issue 36 item 14: a new key takes the type its text reads as, when the value reads back as that very text
    /// (`defaults set newKey 1.5` stored the string "1.5"); any other text is a string, and `--type` still decides.
    @Test(arguments: [
        ("launchCount", "5", "integer"), ("offset", "-3", "integer"), ("ratio", "1.5", "real"),
        ("enabled", "true", "bool"), ("hidden", "false", "bool"), ("since", "2026-01-01T00:00:00Z", "date"),
        ("zip", "007", "string"), ("version", "1.10", "string"), ("big", "1e3", "string"), ("answer", "yes", "string"),
        ("theme", "dark", "string"), ("nan", "nan", "string"),
    ])
    func aNewKeyTakesTheTypeItsTextReadsAsAndSaysSo(key: String, text: String, typeName: String) throws {
        let result = try set(key, text)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "stored \(key) = \(text) (\(typeName))\n")
        let got = try strata(["defaults", "get", key, "--root", root, "--json"])
        #expect(got.standardOutput.contains(#""type":"\#(typeName)""#), "\(got.standardOutput)")
        #expect(
            try strata(["defaults", "get", key, "--root", root]).standardOutput == text + "\n", "read back as given")
    }

    @Test func typeStillDecidesForANewKey() throws {
        #expect(try set("launchCount", "5", ["--type", "string"]).standardError == "stored launchCount = 5 (string)\n")
        // The key now holds a string: it keeps that type.
        #expect(try set("launchCount", "6").standardError == "stored launchCount = 6 (string)\n")
        #expect(try set("launchCount", "7", ["--type", "int"]).standardError == "stored launchCount = 7 (integer)\n")
        let help = try strata(["defaults", "set", "--help"]).standardOutput
        #expect(help.contains("for a new key, the type the text reads as exactly"), "\(help)")
    }

    func importSuite() throws {
        let json = Data(#"{"fontSize":14,"name":"Ada"}"#.utf8).base64EncodedString()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>settings</key><data>\(json)</data>
            <key>blob</key><data>AAEC</data>
            <key>profile</key><dict><key>name</key><string>Ada</string><key>born</key><date>1815-12-10T00:00:00Z</date><key>tags</key><array><string>a</string><integer>2</integer></array></dict>
            <key>recent</key><array><string>x</string><real>0.5</real><true/></array>
            </dict></plist>
            """
        let file = directory.appending("suite.plist")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try strata(["defaults", "import", file, "--root", root]).status == 0)
    }

    @Test func structuredValuesPrintAsJSON() throws {
        try importSuite()
        let get = { (key: String) in try strata(["defaults", "get", key, "--root", root]).standardOutput }
        #expect(try get("settings") == #"{"fontSize":14,"name":"Ada"}"# + "\n")
        #expect(try get("profile") == #"{"born":"1815-12-10T00:00:00Z","name":"Ada","tags":["a",2]}"# + "\n")
        #expect(try get("recent") == #"["x",0.5,true]"# + "\n")
        #expect(try get("blob") == "<3 bytes>\n", "data that is not JSON stays a size")
        for key in ["settings", "profile", "recent"] {
            let text = try get(key)
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(key): \(text)")
        }
    }

    @Test func structuredValuesAreSetFromJSON() throws {
        try importSuite()
        let settings = try set("settings", #"{"fontSize":16}"#)
        #expect(settings.status == 0, "\(settings.standardError)")
        #expect(settings.standardError == #"stored settings = {"fontSize":16} (data)"# + "\n")
        let profile = try set("profile", #"{"name":"Bo","age":3}"#)
        #expect(profile.standardError == #"stored profile = {"age":3,"name":"Bo"} (dictionary)"# + "\n")
        #expect(try set("recent", "[1,2]").standardError == "stored recent = [1,2] (array)\n")
        for (key, text) in [("settings", "nope"), ("profile", "[1]"), ("recent", "{}"), ("profile", #"{"a":null}"#)] {
            let refused = try set(key, text)
            #expect(refused.status == 2, "\(key) = \(text)")
            #expect(refused.standardError.contains(key), "\(refused.standardError)")
        }
        #expect(try strata(["defaults", "get", "recent", "--root", root]).standardOutput == "[1,2]\n")
    }
}

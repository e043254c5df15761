import Foundation
import StrataTestSupport
import Testing

/// What `strata` prints or writes when the data it handles is hostile: names that carry terminal control
/// sequences or direction overrides never reach the terminal raw, and what it writes out stays private.
@Suite("strata CLI: hostile names and private output")
struct HostileOutputTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-hostile-out") }

    /// Scalars a terminal may obey or that reorder a line: ESC, CSI as a C1 control, RIGHT-TO-LEFT OVERRIDE.
    static let steering: [Unicode.Scalar] = ["\u{1B}", "\u{9B}", "\u{202E}"]

    func strata(_ arguments: [String], shell prefix: String? = nil) throws -> ChildProcess.Result {
        let executable = try TestExecutables.url(named: "strata")
        let environment = ["STRATA_ROOT": "", "STRATA_PASSPHRASE": "pw"]
        guard let prefix else { return try ChildProcess.run(executable, arguments, environment: environment) }
        return try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", prefix + "; exec \"$0\" \"$@\"", executable.path] + arguments,
            environment: environment)
    }

    func expectNoSteering(_ text: String, _ what: String) {
        for scalar in Self.steering {
            #expect(!text.unicodeScalars.contains(scalar), "\(what) printed U+\(String(scalar.value, radix: 16)) raw")
        }
    }

    @Test func foreignKeysAndValuesAreEscapedInListings() throws {
        // A suite written by another tool, with keys and a value no Strata key would accept.
        let suite = directory.appending("foreign.plist")
        let script = """
            import plistlib, sys
            data = {"clear\\x1b[2J": "v", "csi\\u009b31m": "w", "name": "txt\\u202efdp.exe"}
            open(sys.argv[1], "wb").write(plistlib.dumps(data, fmt=plistlib.FMT_BINARY))
            """
        let made = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, suite])
        try #require(made.status == 0, "\(made.standardError)")
        let imported = try strata(["defaults", "import", suite, "--root", root, "--create"])
        #expect(imported.status == 0, "\(imported.standardError)")
        let list = try strata(["defaults", "list", "--root", root])
        #expect(list.status == 0)
        expectNoSteering(list.standardOutput, "defaults list")
        #expect(list.standardOutput.contains(#"clear\u{1b}[2J = v"#), "\(list.standardOutput)")
        #expect(list.standardOutput.contains(#"name = txt\u{202e}fdp.exe"#))
    }

    @Test func errorMessagesNeverCarryControlSequences() throws {
        for arguments in [
            ["defaults", "get", "clear\u{1B}[2J", "--root", root],
            ["files", "get", "x\u{9B}2J", "--root", root],
            ["files", "rm", "a\u{202E}b", "--root", root],
            ["secrets", "get", "svc\u{1B}]0;title\u{7}", "acct", "--root", root],
        ] {
            let result = try strata(arguments)
            #expect(result.status != 0)
            #expect(!result.standardError.isEmpty)
            expectNoSteering(result.standardError, arguments.prefix(2).joined(separator: " "))
            #expect(!result.standardError.unicodeScalars.contains("\u{7}"))
        }
    }

    @Test func writtenOutputIsPrivateWhateverTheUmask() throws {
        #expect(try strata(["defaults", "set", "theme", "dark", "--root", root, "--create"]).status == 0)
        let source = directory.appending("note.txt")
        try Data("private note".utf8).write(to: URL(fileURLWithPath: source))
        #expect(try strata(["files", "put", "note.txt", source, "--root", root, "--create"]).status == 0)
        let outputs = [
            (["files", "get", "note.txt", "--root", root, "--output"], directory.appending("out.txt")),
            (["defaults", "export", "--root", root, "--output"], directory.appending("suite.plist")),
            (["files", "export", "note.txt", "--root", root, "--output"], directory.appending("note.gz")),
        ]
        for (arguments, output) in outputs {
            let result = try strata(arguments + [output], shell: "umask 022")
            #expect(result.status == 0, "\(result.standardError)")
            let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
            #expect(
                mode == 0o600, "\(arguments.prefix(2).joined(separator: " ")) wrote mode \(String(mode ?? 0, radix: 8))"
            )
        }
    }
}

import Foundation
import StrataTestSupport
import Testing

/// Every tier verb of `strata`, run as a subprocess, success and error paths.
@Suite("strata CLI: tier verbs")
struct TierVerbTests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli") }

    func strata(_ arguments: [String], passphrase: String? = "pw", input: Data? = nil) throws -> ChildProcess.Result {
        var environment = ["STRATA_ROOT": ""]
        if let passphrase { environment["STRATA_PASSPHRASE"] = passphrase }
        return try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments, environment: environment, input: input)
    }

    @Test func defaultsVerbs() throws {
        #expect(try strata(["defaults", "set", "theme", "dark", "--root", root, "--create"]).status == 0)
        #expect(
            try strata(["defaults", "set", "launches", "3", "--type", "int", "--root", root, "--create"]).status == 0)
        #expect(try strata(["defaults", "get", "theme", "--root", root]).standardOutput == "dark\n")
        #expect(try strata(["defaults", "list", "--root", root]).standardOutput == "launches = 3\ntheme = dark\n")
        let refused = try strata(["defaults", "set", "apiToken", "x", "--root", root, "--create"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("sensitive-key"))
        let export = directory.appending("suite.plist")
        #expect(try strata(["defaults", "export", "--root", root, "--binary", "--output", export]).status == 0)
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/opt/swift/usr/bin/plutil"), ["-lint", export]).status == 0)
        #expect(try strata(["defaults", "delete", "theme", "--root", root]).status == 0)
        #expect(try strata(["defaults", "get", "theme", "--root", root]).status == 1)
        #expect(
            try strata(["defaults", "import", export, "--root", root, "--create"]).standardOutput
                == "imported 2 key(s)\n")
        #expect(try strata(["defaults", "get", "theme", "--root", root]).standardOutput == "dark\n")
        #expect(try strata(["defaults", "set", "n", "x", "--type", "int", "--root", root, "--create"]).status == 2)
    }

    @Test func secretsVerbs() throws {
        let set = try strata(
            ["secrets", "set", "api.example.com", "alice", "--root", root, "--create", "--label", "Alice"],
            input: Data("s3cr3t-value".utf8))
        #expect(set.status == 0, "\(set.standardError)")
        let list = try strata(["secrets", "list", "--root", root])
        #expect(list.standardOutput.contains("api.example.com\talice\twhenUnlocked\t12 bytes\tAlice"))
        let hidden = try strata(["secrets", "get", "api.example.com", "alice", "--root", root])
        #expect(hidden.standardOutput.contains("<redacted>"))
        #expect(!hidden.standardOutput.contains("s3cr3t"))
        #expect(
            try strata(["secrets", "get", "api.example.com", "alice", "--root", root, "--show"]).standardOutput
                == "s3cr3t-value\n")
        let wrong = try strata(["secrets", "list", "--root", root], passphrase: "nope")
        #expect(wrong.status == 1)
        #expect(wrong.standardError.contains("authentication-failed"))
        let passwordFile = directory.appending("new-passphrase")
        try Data("pw2\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile)
        #expect(try strata(["secrets", "passwd", "--root", root, "--new-passphrase-file", passwordFile]).status == 0)
        #expect(try strata(["secrets", "list", "--root", root]).status == 1)
        #expect(
            try strata([
                "secrets", "get", "api.example.com", "alice", "--root", root, "--show", "--passphrase-file",
                passwordFile,
            ]).standardOutput == "s3cr3t-value\n")
        #expect(
            try strata(["secrets", "delete", "api.example.com", "alice", "--root", root], passphrase: "pw2").status == 0
        )
        #expect(
            try strata(["secrets", "get", "api.example.com", "alice", "--root", root], passphrase: "pw2").status == 1)
    }

    @Test func recordsVerbs() throws {
        let lines =
            (0..<20).map { #"{"id":"p\#($0)","name":"Person \#($0)","age":\#(20 + $0)}"# }.joined(separator: "\n")
            + "\n"
        let file = directory.appending("people.jsonl")
        try Data(lines.utf8).write(to: URL(fileURLWithPath: file))
        #expect(
            try strata(["records", "import", "people", file, "--root", root, "--create"]).standardOutput
                == "imported 20 record(s)\n")
        #expect(try strata(["records", "list", "--root", root]).standardOutput == "people\t20\n")
        let query = try strata([
            "records", "query", "people", "--root", root, "--where", "age>=35", "--sort", "-age", "--limit", "2",
        ])
        #expect(
            query.standardOutput == #"{"age":39,"id":"p19","name":"Person 19"}"# + "\n"
                + #"{"age":38,"id":"p18","name":"Person 18"}"# + "\n")
        let bad = directory.appending("bad.jsonl")
        try Data("{\"id\":\"x\"}\nnot json\n".utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try strata(["records", "import", "people", bad, "--root", root, "--create"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("line 2"))
        let out = directory.appending("out.jsonl")
        #expect(
            try strata(["records", "export", "people", "--output", out, "--root", root]).standardOutput.contains(
                "exported 20"))
        #expect(try strata(["records", "verify", "--root", root]).standardOutput == "ok\n")
        #expect(try strata(["records", "query", "nothing", "--root", root]).status == 1)
        #expect(try strata(["records", "query", "people", "--root", root, "--where", "age"]).status == 2)
    }

    @Test func filesVerbs() throws {
        let source = directory.appending("report.pdf")
        try Data("%PDF-1.7\nhello".utf8).write(to: URL(fileURLWithPath: source))
        #expect(try strata(["files", "put", "docs/report.pdf", source, "--root", root, "--create"]).status == 0)
        #expect(try strata(["files", "ls", "--root", root]).standardOutput == "docs/report.pdf\n")
        #expect(try strata(["files", "ls", "--root", root, "--long"]).standardOutput.contains("application/pdf"))
        #expect(try strata(["files", "get", "docs/report.pdf", "--root", root]).standardOutput == "%PDF-1.7\nhello")
        let zip = directory.appending("docs.zip")
        let export = try strata(["files", "export", "docs", "--output", zip, "--root", root])
        #expect(export.status == 0)
        #expect(export.standardError.contains("export: 100%"), "plain progress lines when stderr is not a terminal")
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/unzip"), ["-t", zip]).status == 0)
        #expect(
            try strata(["files", "import", zip, "--into", "copy", "--root", root, "--create"]).standardOutput
                == "imported 1 file(s)\n")
        #expect(try strata(["files", "verify", "--root", root]).standardOutput == "ok\n")
        let hostile = try strata(["files", "get", "../../etc/passwd", "--root", root])
        #expect(hostile.status == 1)
        #expect(hostile.standardError.contains("invalid-key"))
        #expect(try strata(["files", "rm", "docs/report.pdf", "--root", root]).status == 0)
        #expect(try strata(["files", "rm", "docs/report.pdf", "--root", root]).status == 1)
    }

    @Test func inspectAndVerifyAWholeStore() throws {
        #expect(try strata(["demo", "--root", root]).status == 0)
        let inspect = try strata(["inspect", root])
        #expect(inspect.status == 0)
        for line in ["defaults: 1 suite(s)", "secrets: 1 keyring(s)", "records: 1 store(s)", "files: 3 file(s)"] {
            #expect(inspect.standardOutput.contains(line), "\(inspect.standardOutput)")
        }
        // Without the keyring's passphrase its items cannot be opened: said so, and not called sound.
        let partial = try strata(["verify", root], passphrase: nil)
        #expect(partial.status == 1)
        #expect(partial.standardOutput.contains("unchecked: secrets/default: its items were not opened"))
        #expect(partial.standardOutput.contains("ok: what could be checked in"), "\(partial.standardOutput)")
        #expect(!partial.standardOutput.contains("ok: every tier"))
        let allowed = try strata(["verify", root, "--allow-unchecked", "--json"], passphrase: nil)
        #expect(allowed.status == 0)
        #expect(allowed.standardOutput.contains(#""ok":true"#) && allowed.standardOutput.contains(#""unchecked":["#))
        // With the keyring's passphrase every item is opened too; with a wrong one, verify says so.
        #expect(try strata(["verify", root], passphrase: "strata demo passphrase").standardOutput.hasPrefix("ok"))
        #expect(try strata(["verify", root], passphrase: "wrong").status == 1)
        // A corrupt suite file is found.
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: root + "/defaults/standard.plist"))
        let broken = try strata(["verify", root], passphrase: nil)
        #expect(broken.status == 1)
        #expect(broken.standardOutput.contains("defaults/standard.plist"))
    }

    @Test func missingRootIsAClearError() throws {
        for arguments in [
            ["inspect", directory.appending("nope")], ["files", "ls", "--root", directory.appending("nope")],
            ["records", "list", "--root", directory.appending("nope")],
        ] {
            let result = try strata(arguments)
            #expect(result.status == 1)
            #expect(result.standardError.contains("does not exist"))
        }
        #expect(try strata(["defaults", "list"]).status == 2, "no root at all is a usage error")
    }

    @Test(arguments: ["defaults", "secrets", "records", "files"])
    func everyGroupAndVerbHasHelp(_ group: String) throws {
        let help = try strata([group, "--help"])
        #expect(help.status == 0)
        let verbs = CompletionAndHelpTests.commandNames(in: help.standardOutput)
        #expect(verbs.count >= 4)
        for verb in verbs {
            let verbHelp = try strata([group, String(verb), "--help"])
            #expect(verbHelp.status == 0)
            #expect(verbHelp.standardOutput.hasPrefix("Usage: strata \(group) \(verb)"))
        }
    }
}

@Suite("Sample programs")
struct SampleTests {
    @Test func pdfExporterMakesRealPDFs() throws {
        let directory = try TemporaryDirectory(prefix: "strata-pdf")
        let result = try ChildProcess.run(
            try TestExecutables.url(named: "pdf-exporter"),
            ["--root", directory.appending("store"), "--output", directory.appending("out")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("report-1.pdf -> files (FileManager, rule file-to-files)"))
        #expect(result.standardOutput.contains("-> records (CoreData"))
        #expect(result.standardOutput.contains("last export folder -> defaults (UserDefaults"))
        let pdfs = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("pdf: ") }.map {
            String($0.dropFirst(5))
        }
        try #require(pdfs.count == 3)
        let info = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/pdfinfo"), [pdfs[0]])
        let pages = info.standardOutput.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ")
            .last
        #expect(pages == "2", "\(info.standardOutput)\(info.standardError)")
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/qpdf"), ["--check", pdfs[0]]).status == 0)
        let render = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/pdftoppm"), ["-png", "-r", "30", pdfs[0], directory.appending("page")])
        #expect(render.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.appending("page-1.png")))
        #expect(FileManager.default.fileExists(atPath: directory.appending("page-2.png")))
        #expect(
            try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/unzip"), ["-t", directory.appending("out/reports.zip")]
            ).status == 0)
        #expect(
            try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/gzip"), ["-t", directory.appending("out/report-1.pdf.gz")]
            ).status == 0)
    }

    @Test func audioExporterMakesRealWAVs() throws {
        let directory = try TemporaryDirectory(prefix: "strata-audio")
        let result = try ChildProcess.run(
            try TestExecutables.url(named: "audio-exporter"),
            ["--root", directory.appending("store"), "--output", directory.appending("out")],
            environment: ["STRATA_PASSPHRASE": "pw"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("upload token -> secrets (Keychain, rule sensitive-to-secrets)"))
        #expect(result.standardOutput.contains("the upload token <redacted> in secrets"))
        let wavs = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("wav: ") }.map {
            String($0.dropFirst(5))
        }
        try #require(wavs.count == 3)
        let soxi = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sox"), ["--i", wavs[0]])
        #expect(soxi.status == 0, "\(soxi.standardError)")
        #expect(soxi.standardOutput.contains("Sample Rate    : 44100"))
        #expect(soxi.standardOutput.contains("Precision      : 16-bit"))
        #expect(
            try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/unzip"), ["-t", directory.appending("out/recordings.zip")]
            ).status == 0)
        let cli = try ChildProcess.run(
            try TestExecutables.url(named: "strata"), ["secrets", "list", "--root", directory.appending("store")],
            environment: ["STRATA_PASSPHRASE": "pw"])
        #expect(cli.standardOutput.contains("strata.storage\tuploads/audio-exporter"))
    }

    @Test func aSampleWithoutARootFails() throws {
        let result = try ChildProcess.run(try TestExecutables.url(named: "pdf-exporter"), [])
        #expect(result.status == 1)
        #expect(result.standardError.contains("--root DIR is required"))
    }
}

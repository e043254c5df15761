import Foundation
import StrataTestSupport
import Testing

/// The gateway `Scripts/s3.sh start` exported, for the `strata files … --url s3://…` tests.
enum S3Gateway {
    static let environment = ProcessInfo.processInfo.environment
    /// `STRATA_S3_URL`: the test bucket (`s3://strata-test/`), or `nil` when no gateway runs.
    static var url: String? { environment["STRATA_S3_URL"].flatMap { $0.isEmpty ? nil : $0 } }
    static var isConfigured: Bool { url != nil }

    /// A fresh folder of the test bucket, `s3://strata-test/cli-<uuid>/`.
    static func freshLocation() -> String {
        let base = url ?? ""
        return base + (base.hasSuffix("/") ? "" : "/") + "cli-\(UUID().uuidString.lowercased())/"
    }
}

/// The files verbs on S3, as subprocesses: selected by `--url`, by `STRATA_FILES_URL`, or by the store's
/// configuration. The live half needs a gateway (`eval "$(Scripts/s3.sh start)"`); under `CI=true` it must run.
@Suite("strata files on S3")
struct S3FilesCLITests {
    let directory: TemporaryDirectory
    /// The gateway stays up for each test: the `strata` processes' clients retry a few times only.
    let gateway = S3GatewayHold(.steady)
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-s3") }

    func strata(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run(
            try TestExecutables.url(named: "strata"), arguments,
            environment: ["STRATA_ROOT": "", "STRATA_FILES_URL": ""].merging(environment) { $1 })
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appending(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func s3CLIIsTestedInCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(S3Gateway.isConfigured, "CI=true but STRATA_S3_URL is not set (Scripts/s3.sh start)")
        }
    }

    @Test(arguments: [
        ("http://media/x", "scheme"), ("s3://bad bucket", "bucket"), ("s3://media/a//b", "prefix"),
        ("s3://AKIAIOSFODNN7EXAMPLE:hunter2secret@media/x", "bucket"),
    ])
    func aMalformedURLIsRefusedNamingThePart(_ url: String, _ part: String) throws {
        for verb in [["ls"], ["stat", "k"], ["get", "k"], ["rm", "k"], ["verify"]] {
            let result = try strata(["files"] + verb + ["--url", url])
            #expect(result.status == 1, "\(verb): \(result.standardError)")
            #expect(result.standardError.contains("invalid-argument"), "\(result.standardError)")
            #expect(result.standardError.contains("attribute \(part)"), "\(result.standardError)")
            #expect(!result.standardError.contains("hunter2secret"))
        }
    }

    @Test func missingCredentialsNameTheVariablesToSet() throws {
        let file = try write("hello", to: "hello.txt")
        let result = try strata(
            ["files", "put", "k", file, "--url", "s3://media/x"],
            environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": ""])
        #expect(result.status == 1)
        #expect(result.standardError.contains("authentication-failed"), "\(result.standardError)")
        #expect(result.standardError.contains("attribute credentials"))
        #expect(result.standardError.contains("AWS_ACCESS_KEY_ID"))
        #expect(result.standardError.contains("AWS_SECRET_ACCESS_KEY"))
    }

    @Test(.enabled(if: S3Gateway.isConfigured)) func everyFilesVerbRunsOnS3WithURL() throws {
        let url = S3Gateway.freshLocation()
        let report = try write("%PDF-1.7 quarterly report\n", to: "report.pdf")
        let notes = try write("notes\n", to: "notes.txt")
        #expect(try strata(["files", "put", "exports/report.pdf", report, "--url", url]).status == 0)
        #expect(try strata(["files", "put", "exports/notes.txt", notes, "--url", url]).status == 0)
        #expect(
            try strata(["files", "ls", "exports", "--url", url]).standardOutput
                == "exports/notes.txt\nexports/report.pdf\n")
        let long = try strata(["files", "ls", "exports", "--long", "--url", url]).standardOutput
        #expect(long.contains("26\tapplication/pdf\t"), "\(long)")
        let stat = try strata(["files", "stat", "exports/report.pdf", "--url", url])
        #expect(stat.standardOutput.contains("size:         26 bytes"), "\(stat.standardError)")
        #expect(
            try strata(["files", "get", "exports/notes.txt", "--url", url]).standardOutput == "notes\n")
        let copy = directory.appending("copy.pdf")
        #expect(try strata(["files", "get", "exports/report.pdf", "--output", copy, "--url", url]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: report)))

        let zip = directory.appending("exports.zip")
        let exported = try strata(["files", "export", "exports", "--output", zip, "--url", url])
        #expect(exported.standardOutput.hasPrefix("wrote \(zip): 2 entries"), "\(exported.standardError)")
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/unzip"), ["-t", zip]).status == 0)
        let gz = directory.appending("notes.gz")
        #expect(try strata(["files", "export", "exports/notes.txt", "--output", gz, "--url", url]).status == 0)
        #expect(try ChildProcess.run(URL(fileURLWithPath: "/bin/gzip"), ["-t", gz]).status == 0)
        let imported = try strata(["files", "import", zip, "--into", "restored", "--url", url])
        #expect(imported.standardOutput == "imported 2 file(s)\n", "\(imported.standardError)")
        #expect(try strata(["files", "import", gz, "--key", "single/notes.txt", "--url", url]).status == 0)
        #expect(
            try strata(["files", "get", "restored/exports/notes.txt", "--url", url]).standardOutput == "notes\n")
        #expect(try strata(["files", "get", "single/notes.txt", "--url", url]).standardOutput == "notes\n")
        #expect(try strata(["files", "verify", "--url", url]).standardOutput == "ok\n")

        #expect(try strata(["files", "rm", "exports/notes.txt", "--url", url]).status == 0)
        let gone = try strata(["files", "rm", "exports/notes.txt", "--url", url])
        #expect(gone.status == 1)
        #expect(gone.standardError.contains("not-found"))
        let missing = try strata(["files", "get", "exports/notes.txt", "--url", url])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("not-found"), "\(missing.standardError)")
        for key in [
            "exports/report.pdf", "restored/exports/notes.txt", "restored/exports/report.pdf", "single/notes.txt",
        ] {
            #expect(try strata(["files", "rm", key, "--url", url]).status == 0)
        }
        #expect(try strata(["files", "ls", "--url", url]).standardOutput == "")
    }

    @Test(.enabled(if: S3Gateway.isConfigured)) func theEnvironmentVariableSelectsS3() throws {
        let url = S3Gateway.freshLocation()
        let file = try write("via the environment\n", to: "env.txt")
        #expect(try strata(["files", "put", "a.txt", file], environment: ["STRATA_FILES_URL": url]).status == 0)
        #expect(try strata(["files", "get", "a.txt", "--url", url]).standardOutput == "via the environment\n")
        #expect(try strata(["files", "rm", "a.txt"], environment: ["STRATA_FILES_URL": url]).status == 0)
    }

    @Test(.enabled(if: S3Gateway.isConfigured)) func theStoreConfigurationPutsFilesOnS3AndInspectShowsWhere() throws {
        let url = S3Gateway.freshLocation()
        let root = directory.appending("store")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        _ = try write("version = 1\n[files]\nbackend = s3\nurl-variable = TEST_FILES_URL\n", to: "store/strata.conf")
        let environment = ["TEST_FILES_URL": url]
        let file = try write("configured\n", to: "c.txt")
        let put = try strata(["files", "put", "docs/c.txt", file, "--root", root], environment: environment)
        #expect(put.status == 0, "\(put.standardError)")
        // Nothing landed under the root: the files tier is the bucket.
        #expect(!FileManager.default.fileExists(atPath: root + "/files/docs/c.txt"))
        #expect(try strata(["files", "get", "docs/c.txt", "--url", url]).standardOutput == "configured\n")

        let inspect = try strata(["inspect", root], environment: environment)
        #expect(inspect.status == 0, "\(inspect.standardError)")
        let endpoint = S3Gateway.environment["AWS_ENDPOINT_URL"] ?? ""
        #expect(inspect.standardOutput.contains("files: on S3, \(url) at \(endpoint)"), "\(inspect.standardOutput)")
        #expect(inspect.standardOutput.contains("  1 file(s), 11 bytes"))
        #expect(inspect.standardOutput.contains("  files: s3; "))
        let bucketAndPrefix = url.dropFirst("s3://".count)
        #expect(inspect.standardOutput.contains("server \(endpoint)/\(bucketAndPrefix)"), "\(inspect.standardOutput)")
        for secret in [S3Gateway.environment["AWS_SECRET_ACCESS_KEY"], S3Gateway.environment["AWS_ACCESS_KEY_ID"]] {
            #expect(!inspect.standardOutput.contains(secret ?? "<unset>"))
        }
        let json = try strata(["inspect", root, "--json"], environment: environment).standardOutput
        #expect(json.contains("\"location\":\"\(url) at \(endpoint)"), "\(json)")
        #expect(try strata(["verify", root], environment: environment).standardOutput.hasPrefix("ok"))
        #expect(try strata(["files", "rm", "docs/c.txt", "--root", root], environment: environment).status == 0)
    }
}

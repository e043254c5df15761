import Foundation
import StrataTestSupport
import Testing

/// `strata`'s verbs that take a prefix agree with the API: a plain string prefix, a folder asked for with `/`.
@Suite("strata CLI: one prefix rule")
struct FilesPrefixCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-prefix") }

    func put(_ key: String) throws {
        let source = directory.appending("source")
        try Data(key.utf8).write(to: URL(fileURLWithPath: source))
        let result = try strata(["files", "put", key, source, "--root", root, "--create"])
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test func lsFilesLsVerifyAndExportMatchThePrefixAsAString() throws {
        for key in ["photos/a.jpg", "photos/2026/b.jpg", "photos-old/c.jpg", "photosynthesis.txt", "x.txt"] {
            try put(key)
        }
        let cases: [(prefix: String, keys: [String])] = [
            ("photos", ["photos-old/c.jpg", "photos/2026/b.jpg", "photos/a.jpg", "photosynthesis.txt"]),
            ("photos/", ["photos/2026/b.jpg", "photos/a.jpg"]),
            ("photos-", ["photos-old/c.jpg"]),
            ("photos/a", ["photos/a.jpg"]),
        ]
        for (prefix, keys) in cases {
            let files = try strata(["files", "ls", prefix, "--root", root])
            #expect(files.standardOutput == keys.map { $0 + "\n" }.joined(), "files ls \(prefix)")
            let all = try strata(["ls", prefix, "--root", root])
            #expect(all.standardOutput == keys.map { $0 + "\n" }.joined(), "ls \(prefix)")
            #expect(try strata(["files", "verify", prefix, "--root", root]).standardOutput == "ok\n")
            let zip = directory.appending("export.zip")
            let export = try strata(["files", "export", prefix, "--output", zip, "--root", root])
            #expect(export.status == 0, "export \(prefix): \(export.standardError)")
            #expect(export.standardOutput.contains("\(keys.count) entries"), "export \(prefix)")
            let names = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", "-c",
                    "import sys, zipfile; print('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", zip,
                ])
            #expect(names.standardOutput == keys.sorted().map { $0 + "\n" }.joined(), "export \(prefix)")
        }
        let none = try strata([
            "files", "export", "photos-new", "--output", directory.appending("n.zip"), "--root", root,
        ])
        #expect(none.status == 1)
        #expect(none.standardError.contains("not-found"))
    }
}

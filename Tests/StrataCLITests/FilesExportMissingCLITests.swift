import Foundation
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("strata CLI: an export reports the files deleted while it ran")
struct FilesExportMissingCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    let strata = StrataRunner()
    init() throws { directory = try TemporaryDirectory(prefix: "strata-cli-missing") }

    func put(_ key: String) throws {
        let source = directory.appending("source")
        try Data(key.utf8).write(to: URL(fileURLWithPath: source))
        let result = try strata(["files", "put", key, source, "--root", root, "--create"])
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// A second process deletes a file after the export listed it and before its turn: the export leaves it out,
    /// names it in a warning, exits 0, and its archive passes `unzip -t`. (Before, it failed with `not-found` and
    /// wrote nothing.) Made deterministic by a child holding the file's lock, so the export waits at that file;
    /// the test sees the export start its reads (inotify: a lock file opened, which only happens once listing and
    /// sizing are done), deletes the file, then kills the child.
    @Test(arguments: [false, true])
    func aFileDeletedDuringTheExportIsReportedAndTheArchiveIsValid(json: Bool) throws {
        for key in ["a.txt", "b.txt", "c.txt"] { try put(key) }
        let holder = try ChildProcess(
            try TestExecutables.url(named: "strata-test-child"), ["files-hold-key", root, "b.txt"])
        defer { holder.kill() }
        try holder.waitForLine { $0 == "holding" }
        let locks = root + "/files/.strata-locks"
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, locks, UInt32(IN_OPEN)) >= 0)
        let zip = directory.appending("export.zip")
        let export = try ChildProcess(
            try TestExecutables.url(named: "strata"),
            ["files", "export", "--output", zip, "--root", root] + (json ? ["--json"] : []),
            environment: ["STRATA_ROOT": ""])
        try waitForLockFileOpened(watch)
        #expect(unlink(root + "/files/b.txt") == 0)
        holder.kill()
        let result = export.wait()
        #expect(result.status == 0, "\(result.standardError)")
        if json {
            let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(report?["entries"] as? Int == 2)
            #expect(report?["missingKeys"] as? [String] == ["b.txt"])
        } else {
            #expect(result.standardOutput.contains("2 entries"))
        }
        #expect(result.standardError.contains("warning: 'b.txt' was deleted during the export; not archived"))
        let test = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/unzip"), ["-t", zip])
        #expect(test.status == 0, "\(test.standardOutput)")
        let names = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", zip])
        #expect(names.standardOutput == "['a.txt', 'c.txt']\n")
    }

    /// Reads inotify events until a key's lock file (`<hash>.lock`) is opened; gives up after a minute (a hang
    /// guard, not a timing assertion).
    private func waitForLockFileOpened(_ watch: Int32) throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<600 {
            var poller = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = read(watch, &buffer, buffer.count)
            var offset = 0
            while offset + 16 <= count {
                let mask = buffer[(offset + 4)..<(offset + 8)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let length = Int(
                    buffer[(offset + 12)..<(offset + 16)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if mask & UInt32(IN_ISDIR) == 0, name.hasSuffix(".lock"), !name.hasPrefix("import-") { return }
                offset += 16 + length
            }
        }
        Issue.record("the export never opened a lock file")
    }
}

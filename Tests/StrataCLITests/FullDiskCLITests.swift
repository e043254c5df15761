import Foundation
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A full disk, for real: a 1 MiB tmpfs mounted in a mount namespace of the test's own (`unshare -m`, as root, which
/// the test command runs as). The records import that fills it fails with `no-space`, and the store still reads: a
/// checkpoint the full disk cut short left the database file pointing at pages only its write-ahead log held, and a
/// read that looked at the file alone called it `corrupt`.
@Suite("strata CLI: a full disk", .enabled(if: getuid() == 0))
struct FullDiskCLITests {
    @Test func aFullDiskIsNoSpaceAndTheStoreStillReads() throws {
        let directory = try TemporaryDirectory(prefix: "strata-full-disk")
        let lines = (0..<20_000).map { #"{"id":"\#($0)","text":"\#(String(repeating: "x", count: 200))"}"# }
        let input = directory.appending("people.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let mount = directory.appending("tiny")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let strata = try TestExecutables.url(named: "strata").path
        let script = """
            mount -t tmpfs -o size=1m tmpfs '\(mount)' || exit 99
            '\(strata)' records import people '\(input)' --root '\(mount)/store' --create; echo "import=$?"
            '\(strata)' records list --root '\(mount)/store'; echo "list=$?"
            '\(strata)' records query people --root '\(mount)/store' --limit 1; echo "query=$?"
            umount '\(mount)'
            """
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "sh", "-c", script], environment: ["STRATA_ROOT": ""],
            timeout: 300)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("import=1"), "\(result.standardOutput)")
        #expect(result.standardError.contains("records import: error: no-space"), "\(result.standardError)")
        #expect(result.standardOutput.contains("people\t"), "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("list=0") && result.standardOutput.contains("query=0"))
        #expect(!result.standardError.contains("corrupt"), "\(result.standardError)")
    }
}

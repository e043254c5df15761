import Foundation
import StrataArchiveFixtures
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile neighbour in a group-shared root: an unprivileged process (`nobody`, dropped to with `setpriv`)
/// swaps store folders with symbolic links to a folder it cannot write, in a tight `renameat2(RENAME_EXCHANGE)`
/// loop, while a root writer writes through the files, defaults and secrets tiers. Nothing may land outside the
/// root: every write either lands inside or fails with a typed error, and every import is all or nothing.
@Suite("Symlink-swap race with an unprivileged process")
struct SymlinkRaceTests {
    static let canRun: Bool = {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") && getpwnam("nobody") != nil
            && getgrnam("nogroup") != nil
    }()
    static let raceCondition = ConditionTrait.enabled(
        if: canRun, "needs root, /usr/bin/setpriv (util-linux), /usr/bin/cc, user nobody and group nogroup")

    /// The neighbour: creates each link, then exchanges each pair of names over and over until killed.
    static let swapperSource = """
        #define _GNU_SOURCE
        #include <fcntl.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/syscall.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
            /* argv: target then pairs of (folder, link) */
            for (int i = 2; i + 1 < argc; i += 2) {
                if (symlink(argv[1], argv[i + 1]) != 0) { perror("symlink"); return 1; }
            }
            printf("swapping\\n");
            fflush(stdout);
            for (unsigned long n = 0;; n++) {
                for (int i = 2; i + 1 < argc; i += 2) {
                    syscall(SYS_renameat2, AT_FDCWD, argv[i], AT_FDCWD, argv[i + 1], 2 /* RENAME_EXCHANGE */);
                }
            }
        }
        """

    /// Makes a temporary folder with a store root shared with `nogroup`, a folder `outside` that nobody can read
    /// but not write, and the compiled swapper.
    static func prepare() throws -> (directory: TemporaryDirectory, root: String, outside: String, helper: String) {
        let directory = try TemporaryDirectory(prefix: "strata-race")
        // nobody must reach the store (and the helper) but cannot write anything outside it.
        chmod(directory.path, 0o755)
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        chmod(outside, 0o755)
        let root = directory.appending("store")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let group = getgrnam("nogroup")!.pointee.gr_gid
        #expect(chown(root, 0, group) == 0)
        #expect(chmod(root, 0o2770) == 0)

        let helper = directory.appending("swapper")
        try Self.swapperSource.write(toFile: helper + ".c", atomically: true, encoding: .utf8)
        let compiled = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/cc"), ["-O2", "-o", helper, helper + ".c"])
        try #require(compiled.status == 0, "cc failed: \(compiled.standardError)")
        return (directory, root, outside, helper)
    }

    /// Starts the swapper as nobody: each (folder, link) pair gets a link to `outside` and is exchanged with it
    /// over and over. Returns once it swaps.
    static func startSwapper(_ helper: String, outside: String, pairs: [(String, String)]) throws -> ChildProcess {
        let swapper = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", helper, outside] + pairs.flatMap { [$0.0, $0.1] })
        _ = try swapper.waitForLine(timeout: 30) { $0 == "swapping" }
        return swapper
    }

    @Test(
        "3,000 writes while nobody swaps folders for links: nothing lands outside the root",
        raceCondition)
    func nothingIsWrittenOutsideTheRoot() throws {
        let (directory, root, outside, helper) = try Self.prepare()
        defer { directory.remove() }

        let paths = try StoragePaths(root: root, sharing: .group)
        let files = try FileStore(paths: paths)
        try files.write(Data("seed".utf8), to: "d/seed")
        let secretsTier = try paths.directory(for: .secrets)
        try FileManager.default.createDirectory(atPath: secretsTier + "/kr", withIntermediateDirectories: false)
        _ = try paths.directory(for: .defaults)

        let pairs = [
            (files.directory + "/d", files.directory + "/d-link"), (root + "/defaults", root + "/defaults-link"),
            (secretsTier + "/kr", secretsTier + "/kr-link"),
        ]
        let swapper = try Self.startSwapper(helper, outside: outside, pairs: pairs)
        defer {
            swapper.kill()
            _ = swapper.wait()
        }

        var (landed, refused) = (0, 0)
        var untyped: [String] = []
        for index in 0..<3000 {
            do {
                try files.write(Data("write \(index)".utf8), to: "d/key-\(index % 64)")
                landed += 1
            } catch let error as StorageError {
                #expect(error.code == .symbolicLink, "\(error)")
                refused += 1
            } catch {
                untyped.append("\(error)")
            }
        }
        let child = try ChildProcess.run(
            TestExecutables.url(named: "strata-test-child"),
            ["race-writes", root, String(repeating: "ab", count: 32), "150"], timeout: 300)
        swapper.kill()
        _ = swapper.wait()

        let escaped = FileManager.default.enumerator(atPath: outside)?.allObjects as? [String] ?? []
        #expect(escaped.isEmpty, "written outside the root: \(escaped)")
        #expect(untyped.isEmpty, "untyped errors: \(untyped.prefix(5))")
        #expect(landed > 0, "no write got through (\(refused) refused)")
        #expect(child.status == 0, "child: \(child.standardOutput) \(child.standardError)")
        #expect(child.standardOutput.hasPrefix("done ok="), "child: \(child.standardOutput) \(child.standardError)")
    }

    @Test(
        "200 imports while nobody swaps their folder for a link: nothing lands outside, each is all or nothing",
        raceCondition)
    func importsNeverLandOutsideTheRoot() throws {
        let (directory, root, outside, helper) = try Self.prepare()
        defer { directory.remove() }
        let files = try FileStore(paths: StoragePaths(root: root, sharing: .group))
        try files.write(Data("seed".utf8), to: "d/seed")
        // Two versions of the same keys, one of them in a folder that the first import creates.
        let names = ["a.txt", "b.txt", "sub/c.txt"]
        let archives = try (0..<2).map { version in
            let archive = directory.appending("v\(version).zip")
            let entries = names.map { ZipSkeleton.Entry(name: $0, content: Array("v\(version) \($0)".utf8)) }
            try Data(ZipSkeleton(entries: entries).bytes()).write(to: URL(fileURLWithPath: archive))
            return archive
        }
        /// What the keys hold, read through the store (which refuses the link: retried until the real folder is
        /// back in place).
        func contents() throws -> [Data?] {
            try names.map { name in
                for _ in 0..<100_000 {
                    do {
                        return try files.readIfPresent("d/" + name)
                    } catch let error as StorageError where error.code == .symbolicLink {
                        continue
                    }
                }
                throw StorageError(.lockTimeout, "the folder stayed a link", key: name)
            }
        }
        let swapper = try Self.startSwapper(
            helper, outside: outside, pairs: [(files.directory + "/d", files.directory + "/d-link")])
        defer {
            swapper.kill()
            _ = swapper.wait()
        }

        var expected: [Data?] = [nil, nil, nil]  // What the keys must hold: the last import that succeeded.
        var (landed, refused) = (0, 0)
        var codes: Set<String> = []
        var untyped: [String] = []
        for index in 0..<200 {
            let version = index % 2
            do {
                try files.importZip(from: archives[version], into: "d")
                landed += 1
                expected = names.map { Data("v\(version) \($0)".utf8) }
            } catch let error as StorageError {
                codes.insert("\(error.code)")
                refused += 1
            } catch {
                untyped.append("\(error)")
            }
            let found = try contents()
            #expect(found == expected, "import \(index) (\(landed) landed) left the keys mixed or changed")
        }
        swapper.kill()
        _ = swapper.wait()

        let escaped = FileManager.default.enumerator(atPath: outside)?.allObjects as? [String] ?? []
        #expect(escaped.isEmpty, "written outside the root: \(escaped)")
        #expect(untyped.isEmpty, "untyped errors: \(untyped.prefix(5))")
        #expect(codes.isSubset(of: ["\(StorageError.Code.symbolicLink)"]), "refused with \(codes)")
        #expect(landed > 0, "no import got through (\(refused) refused)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: files.directory).filter {
            $0.hasPrefix(ImportStaging.namePrefix) || $0.hasPrefix(ImportStaging.keptPrefix)
        }
        #expect(leftovers.isEmpty, "staging left behind: \(leftovers)")
    }
}

import Foundation
import StrataArchiveFixtures
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataFiles
@testable import StrataLocalFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Every file and folder under the store's tier folder (Strata's own `.strata-` files aside), with each file's
/// content, or on an object store every file with its content: what "the store is unchanged" compares.
func storeSnapshot(_ store: FileStore) throws -> [String: Data?] {
    var snapshot: [String: Data?] = [:]
    guard store.engine is PosixFileEngine else {
        // An object store has no folders: its files and their content.
        for key in try store.list() { snapshot[key] = try store.read(key) }
        return snapshot
    }
    let base = store.directory
    guard let walker = FileManager.default.enumerator(atPath: base) else { return snapshot }
    while let name = walker.nextObject() as? String {
        if name.split(separator: "/").contains(where: { $0.hasPrefix(StoragePaths.reservedPrefix) }) { continue }
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isFolder)
        snapshot[name] = isFolder.boolValue ? .some(nil) : try Data(contentsOf: URL(fileURLWithPath: base + "/" + name))
    }
    return snapshot
}

/// One hostile ZIP64 layout: overflowing or near-maximum values in the fields an attacker controls.
struct OverflowCase: Sendable, CustomTestStringConvertible {
    var label: String
    var archive: ZipSkeleton
    var testDescription: String { label }

    static func entry(_ edit: (inout ZipSkeleton.Entry) -> Void) -> ZipSkeleton {
        var entry = ZipSkeleton.Entry(name: "victim.txt", content: Array("some content".utf8))
        entry.zip64 = true
        edit(&entry)
        return ZipSkeleton(entries: [entry])
    }

    static func end(_ edit: (inout ZipSkeleton) -> Void) -> ZipSkeleton {
        var archive = ZipSkeleton(entries: [ZipSkeleton.Entry(name: "victim.txt", content: Array("x".utf8))])
        archive.zip64End = true
        edit(&archive)
        return archive
    }

    static let all: [OverflowCase] = [
        OverflowCase(
            label: "size 2^64-1, compressed 0",
            archive: entry {
                $0.size = .max; $0.compressedSize = 0
            }),
        OverflowCase(
            label: "size Int.max, compressed 0",
            archive: entry {
                $0.size = UInt64(Int.max); $0.compressedSize = 0
            }),
        OverflowCase(label: "size Int.max", archive: entry { $0.size = UInt64(Int.max) }),
        OverflowCase(label: "compressed Int.max", archive: entry { $0.compressedSize = UInt64(Int.max) }),
        OverflowCase(label: "compressed Int.max-40", archive: entry { $0.compressedSize = UInt64(Int.max) - 40 }),
        OverflowCase(label: "compressed 2^64-1", archive: entry { $0.compressedSize = .max }),
        OverflowCase(label: "offset Int.max", archive: entry { $0.offset = UInt64(Int.max) }),
        OverflowCase(label: "offset Int.max-20", archive: entry { $0.offset = UInt64(Int.max) - 20 }),
        OverflowCase(label: "offset 2^64-1", archive: entry { $0.offset = .max }),
        OverflowCase(
            label: "two entries summing past Int.max",
            archive: {
                var first = ZipSkeleton.Entry(name: "a", content: [1])
                first.zip64 = true
                first.size = UInt64(Int.max / 2 + 1)
                first.compressedSize = 0
                var second = first
                second.name = "b"
                return ZipSkeleton(entries: [first, second])
            }()),
        OverflowCase(label: "end: count 2^64-1", archive: end { $0.count = .max }),
        OverflowCase(label: "end: count Int.max", archive: end { $0.count = UInt64(Int.max) }),
        OverflowCase(label: "end: directory offset Int.max", archive: end { $0.directoryOffset = UInt64(Int.max) }),
        OverflowCase(label: "end: directory offset 2^64-1", archive: end { $0.directoryOffset = .max }),
        OverflowCase(label: "end: directory size Int.max", archive: end { $0.directorySize = UInt64(Int.max) }),
        OverflowCase(label: "end: directory size 2^64-1", archive: end { $0.directorySize = .max }),
    ]
}

@Suite("FileStore: hostile archive arithmetic, names and commits")
struct ArchiveHardeningTests {
    let fixture: FilesFixture
    var store: FileStore { fixture.store }
    init() throws { fixture = try FilesFixture(configuration: FilesConfiguration(durability: .atomicOnly)) }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = fixture.outside(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func zip(_ names: [String]) throws -> String {
        let entries = names.enumerated().map {
            ZipSkeleton.Entry(
                name: $0.element, content: $0.element.hasSuffix("/") ? [] : Array("entry \($0.offset)".utf8))
        }
        return try write(ZipSkeleton(entries: entries).bytes(), "names-\(UInt32.random(in: 0...UInt32.max)).zip")
    }

    // MARK: Item 1: arithmetic

    @Test(arguments: FileEngineKind.available, OverflowCase.all)
    func overflowingZip64FieldsAreRefusedTyped(_ engine: FileEngineKind, _ hostile: OverflowCase) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data("precious".utf8), to: "victim.txt")
        let before = try storeSnapshot(store)
        let archive = try write(hostile.archive.bytes(), "overflow.zip")
        let error = #expect(throws: StorageError.self) { try store.importZip(from: archive) }
        #expect(error?.code == .corrupt || error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(error?.path == archive)
        #expect(try storeSnapshot(store) == before)
    }

    // MARK: Item 5: gzip members

    @Test(arguments: FileEngineKind.available)
    func multiMemberGzipMadeByGzipAndCatReadsLikeGzip(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        let parts = [textLike(70_000), Data(), pseudoRandom(5_000, seed: 3), Data("last".utf8)]
        var names: [String] = []
        for (index, part) in parts.enumerated() {
            let path = fixture.outside("part-\(index)")
            try part.write(to: URL(fileURLWithPath: path))
            #expect(try tool("/usr/bin/gzip", ["-f", path]).status == 0)
            names.append("'\(path).gz'")
        }
        let joined = fixture.outside("joined.gz")
        #expect(try tool("/bin/sh", ["-c", "cat \(names.joined(separator: " ")) > '\(joined)'"]).status == 0)
        let reference = fixture.outside("reference")
        #expect(try tool("/bin/sh", ["-c", "gzip -dc '\(joined)' > '\(reference)'"]).status == 0)
        try store.importGzip(from: joined, to: "joined.txt")
        let ours = try store.read("joined.txt")
        #expect(ours == (try Data(contentsOf: URL(fileURLWithPath: reference))))
        #expect(ours == parts.reduce(Data(), +))
        #expect(try store.verify(prefix: "joined.txt").isEmpty)
    }

    @Test(
        arguments: FileEngineKind.available,
        [
            ("zero bytes", [0, 0, 0, 0] as [UInt8]), ("one byte", [0x42]), ("text", Array("garbage after\n".utf8)),
            ("a lone magic", [0x1F, 0x8B]), ("a header without data", [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]),
        ])
    func bytesAfterTheLastMemberAreRefused(_ engine: FileEngineKind, _ tail: (label: String, bytes: [UInt8])) throws {
        let (label, trailing) = tail
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        let file = GzipSkeleton(
            members: [.init(content: Array("first".utf8)), .init(content: Array("second".utf8))], trailing: trailing)
        let path = try write(file.bytes(), "trailing.gz")
        let error = #expect(throws: StorageError.self) { try store.importGzip(from: path, to: "out.txt") }
        #expect(error?.code == .corrupt, "\(label): \(String(describing: error))")
        #expect(error?.path == path)
        #expect(try !store.exists("out.txt"))
    }

    @Test(arguments: FileEngineKind.available, [0, 1, 2])
    func everyMembersChecksumAndSizeAreChecked(_ engine: FileEngineKind, _ damaged: Int) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        for field in ["crc", "size"] {
            var file = GzipSkeleton(members: (0..<3).map { .init(content: Array("member \($0) ".utf8)) })
            if field == "crc" { file.members[damaged].crc = 0xDEAD_BEEF } else { file.members[damaged].size = 99 }
            let path = try write(file.bytes(), "damaged-\(field).gz")
            let error = #expect(throws: StorageError.self) { try store.importGzip(from: path, to: "out.txt") }
            #expect(error?.code == .corrupt, "member \(damaged) \(field): \(String(describing: error))")
            #expect(try !store.exists("out.txt"))
        }
    }

    // MARK: Item 6: names

    @Test(
        arguments: FileEngineKind.available,
        [
            ["a.txt", "a.txt"], ["d/x.txt", "e.txt", "d/x.txt"], ["sub", "sub/"], ["sub/", "sub"], ["a", "a/b"],
            ["a/b", "a"], ["x/y/z", "x/y"], ["x/y", "x/y/z/w"], ["dir/", "dir/f", "dir"],
            ["caf\u{E9}", "caf\u{E9}"], ["cafe\u{301}/x", "cafe\u{301}"],
        ])
    func duplicateOrClashingNamesAreRefused(_ engine: FileEngineKind, _ names: [String]) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data("precious".utf8), to: "existing.txt")
        let before = try storeSnapshot(store)
        let archive = try zip(names)
        let error = #expect(throws: StorageError.self) { try store.importZip(from: archive) }
        #expect(error?.code == .invalidArgument, "\(names): \(String(describing: error))")
        #expect(
            error?.key.map { key in names.contains { $0 == key || $0 == key + "/" } } == true,
            "\(String(describing: error))")
        #expect(error?.path == archive)
        #expect(try storeSnapshot(store) == before)
    }

    @Test(
        arguments: FileEngineKind.available, [["a/b", "a//b"], ["a/b", "./a/b"], ["a/b", "a/./b"], ["a/b", "a/b/"]])
    func namesThatWouldNormalizeToAnotherAreRefused(_ engine: FileEngineKind, _ names: [String]) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        let archive = try zip(names)
        let error = #expect(throws: StorageError.self) { try store.importZip(from: archive) }
        #expect(error?.code == .invalidKey || error?.code == .invalidArgument, "\(names): \(String(describing: error))")
        #expect(try store.list().isEmpty)
    }

    @Test(arguments: FileEngineKind.available)
    func canonicallyEquivalentSpellingsAreTwoEntries(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        let archive = try zip(["caf\u{E9}.txt", "cafe\u{301}.txt", "d/\u{C5}/x", "d/A\u{30A}/x"])
        #expect(try store.importZip(from: archive).count == 4)
        #expect(try store.read("caf\u{E9}.txt") == Data("entry 0".utf8))
        #expect(try store.read("cafe\u{301}.txt") == Data("entry 1".utf8))
        #expect(try store.read("d/\u{C5}/x") == Data("entry 2".utf8))
        #expect(try store.read("d/A\u{30A}/x") == Data("entry 3".utf8))
    }

    // MARK: Item 7: all or nothing

    @Test(
        arguments: FileEngineKind.available,
        [
            (["report.txt", "sub"], ["report.txt", "sub/inner.txt"]),  // The issue's sample: a file over a folder.
            (["new.txt", "report.txt/x"], ["report.txt"]),  // A folder over a file.
            (["a.txt", "deep/er/still/f.txt"], ["deep/er"]),  // A file deep under a store file.
            (["a.txt", "deep"], ["deep/er/still/f.txt"]),  // A file over a deep folder.
            (["x/", "report.txt/"], ["report.txt"]),  // A folder entry over a file.
        ])
    func clashesWithTheStoreAreFoundBeforeAnythingChanges(
        _ engine: FileEngineKind, _ clash: (names: [String], existing: [String])
    ) throws {
        let (names, existing) = clash
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        for key in existing { try store.write(Data("old \(key)".utf8), to: key) }
        let before = try storeSnapshot(store)
        let archive = try zip(names)
        let error = #expect(throws: StorageError.self) { try store.importZip(from: archive) }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(error?.key != nil)
        #expect(try storeSnapshot(store) == before)
    }

    /// Each plan runs in a child process: the fault injector is global to a process, and suites run in parallel.
    @Test(arguments: [SystemCall.rename, .link, .unlink, .mkdir])
    func aFailureAtAnyStepOfTheCommitRestoresTheStore(_ call: SystemCall) throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let root = fixture.directory.appending("root")
        for key in ["a.txt", "b/c.txt", "b/d.txt", "keep.txt"] { try store.write(Data("old \(key)".utf8), to: key) }
        let archive = try zip(["a.txt", "b/c.txt", "new/deeper/e.txt", "b/d.txt", "f.txt"])
        let before = try storeSnapshot(store)
        var failures = 0
        for step in 0..<200 {
            let result = try ChildProcess.run(child, ["files-import-faulty", root, archive, call.rawValue, "\(step)"])
            let output = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            if output.hasPrefix("refused") {
                failures += 1
                #expect(output == "refused \(EIO)", "\(call) step \(step): \(output)")
                #expect(try storeSnapshot(store) == before, "\(call) step \(step) changed the store")
                continue
            }
            #expect(output.hasPrefix("imported"), "\(call) step \(step): \(output) \(result.standardError)")
            // Past the last step, or a fault in a clean-up after the commit: the whole import is in place.
            #expect(try store.read("new/deeper/e.txt") == Data("entry 2".utf8), "\(call) step \(step)")
            #expect(try store.read("a.txt") == Data("entry 0".utf8))
            #expect(try store.read("keep.txt") == Data("old keep.txt".utf8))
            break
        }
        if call == .rename || call == .link || call == .mkdir {
            #expect(failures >= 3, "only \(failures) \(call) steps were failed")
        }
    }

    @Test func aRollbackThatFailsTooKeepsThePreviousFilesAndSaysWhere() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let root = fixture.directory.appending("root")
        for key in ["a.txt", "b.txt"] { try store.write(Data("old \(key)".utf8), to: key) }
        let archive = try zip(["a.txt", "b.txt"])
        // Renames: two into the staging folder, then a.txt and b.txt into place. The 4th (b.txt) fails, and so
        // does the 5th, the rollback's putting back of the old a.txt.
        let result = try ChildProcess.run(child, ["files-import-faulty", root, archive, "rename", "3", "2"])
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "refused \(EIO)", "\(result.standardOutput) \(result.standardError)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.directory).filter {
            $0.hasPrefix(ImportStaging.keptPrefix)
        }
        #expect(kept.count == 1)
        #expect(lines.count > 1 && lines[1].contains(kept.first ?? "?"), "the recovery names the folder: \(lines)")
        let previous = store.directory + "/" + (kept.first ?? "") + "/previous-0"
        #expect(FileManager.default.contents(atPath: previous) == Data("old a.txt".utf8))
        #expect(try store.read("b.txt") == Data("old b.txt".utf8))
        // Neither opening the store nor another import removes it.
        _ = try FileStore(root: root)
        try store.importGzip(
            from: try write(GzipSkeleton(members: [.init(content: [1])]).bytes(), "one.gz"), to: "one.bin")
        #expect(FileManager.default.fileExists(atPath: previous))
    }

    /// An imported file gets the mode every other write gives it: 0640 in a group-shared store, 0600 otherwise.
    @Test(arguments: [StoragePaths.Sharing.private, .group])
    func importedFilesGetTheStoresFileMode(_ sharing: StoragePaths.Sharing) throws {
        let shared = try FileStore(paths: StoragePaths(root: fixture.directory.appending("shared"), sharing: sharing))
        try shared.importZip(from: try zip(["a.txt", "sub/b.txt"]))
        try shared.importGzip(
            from: try write(GzipSkeleton(members: [.init(content: [1])]).bytes(), "one.gz"), to: "one.bin")
        try shared.write(Data("w".utf8), to: "written.txt")
        for key in ["a.txt", "sub/b.txt", "one.bin", "written.txt"] {
            var info = stat()
            #expect(lstat(try shared.path(for: key), &info) == 0)
            #expect(info.st_mode & 0o777 == mode_t(shared.paths.filePermissions), "\(sharing) \(key)")
        }
    }

    // MARK: Item 1: staging of dead imports

    /// A link named like a dead import's staging folder, to a folder outside the store: the clean-up (at open
    /// and before every import) must not follow it and empty the folder it leads to.
    @Test func aLinkInPlaceOfAStagingFolderIsNeverFollowed() throws {
        let victim = fixture.outside("victim")
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim + "/precious.txt"))
        let link = store.directory + "/" + ImportStaging.namePrefix + "1-dead"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        _ = try FileStore(root: fixture.directory.appending("root"))
        try store.importGzip(
            from: try write(GzipSkeleton(members: [.init(content: Array("ok".utf8))]).bytes(), "ok.gz"), to: "ok.txt")
        #expect(FileManager.default.contents(atPath: victim + "/precious.txt") == Data("precious".utf8))
        #expect(try store.read("ok.txt") == Data("ok".utf8))
    }

    @Test func stagingOfAKilledImportIsRemovedButALiveOneIsKept() throws {
        let child = try TestExecutables.url(named: "strata-test-child")
        let root = fixture.directory.appending("root")
        func staging() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: store.directory).filter { $0.contains("import") })
        }
        /// Starts an import that reads a FIFO, feeds it half a gzip file, and waits for its staging folder.
        func stalledImport(_ name: String) throws -> (ChildProcess, Int32, String) {
            let fifo = fixture.outside(name)
            #expect(mkfifo(fifo, 0o600) == 0)
            let before = try staging()
            let process = try ChildProcess(child, ["files-import-gzip", root, fifo, name + ".txt"])
            let fd = open(fifo, O_WRONLY)
            let half = GzipSkeleton(members: [.init(content: Array(textLike(200_000)))]).bytes().prefix(1000)
            _ = Array(half).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            let deadline = Date().addingTimeInterval(30)
            while try staging().subtracting(before).isEmpty, Date() < deadline { usleep(2000) }
            let added = try staging().subtracting(before)
            #expect(added.count == 1)
            return (process, fd, added.first ?? "")
        }
        let (dead, deadFIFO, deadStaging) = try stalledImport("dead")
        dead.kill(SIGKILL)
        _ = dead.wait()
        Glibc.close(deadFIFO)
        #expect(try staging().contains(deadStaging), "the killed import's staging is left at first")
        let (live, liveFIFO, liveStaging) = try stalledImport("live")
        defer { live.kill(SIGKILL); _ = live.wait() }
        _ = try FileStore(root: root)  // Opening the store cleans what dead imports left.
        #expect(try staging() == [liveStaging], "only the live import's staging remains")
        live.kill(SIGKILL)
        _ = live.wait()
        Glibc.close(liveFIFO)
        let gz = try write(GzipSkeleton(members: [.init(content: Array("ok".utf8))]).bytes(), "ok.gz")
        try store.importGzip(from: gz, to: "ok.txt")  // So does every import.
        #expect(try staging().isEmpty)
        #expect(try store.list() == ["ok.txt"])
    }
}

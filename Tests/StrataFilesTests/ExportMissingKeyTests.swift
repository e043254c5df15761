import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles

@Suite("FileStore: an export reports the files deleted while it ran")
struct ExportMissingKeyTests {
    /// Files deleted between the listing and their turn — a small one compressed on a worker, a large one streamed —
    /// are left out and reported; the archive holds the rest and passes `unzip -t` and Python's `zipfile`. (Before,
    /// the first one gone failed the whole export, and no archive was written.)
    @Test(arguments: FileEngineKind.available)
    func filesDeletedDuringAnExportAreReportedAndTheArchiveIsValid(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        let files: [String: Data] = [
            "a/first.txt": textLike(20_000), "a/gone.txt": textLike(30_000), "b/third.txt": Data("3".utf8),
            "b/large-gone.bin": textLike(FileStore.wholeEntryLimit + 5), "b/large-kept.bin": textLike(9 << 20),
        ]
        for (key, data) in files { try store.write(data, to: key) }
        let vanishing = FileStore(
            engine: VanishingEngine(store.engine, vanishing: ["a/gone.txt", "b/large-gone.bin"]),
            configuration: FilesConfiguration(durability: .atomicOnly))
        let archive = location.directory.appending("export.zip")
        let summary = try vanishing.exportZip([""], to: archive, options: ExportOptions(threads: 3))
        #expect(summary.missingKeys == ["a/gone.txt", "b/large-gone.bin"])
        #expect(summary.entries == 3)
        let test = try tool("/usr/bin/unzip", ["-t", archive])
        #expect(test.status == 0, "\(test.standardOutput)")
        let check = try python(
            """
            import sys, zipfile, json, hashlib
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(json.dumps({i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}))
            """, [archive])
        #expect(check.status == 0, "\(check.standardError)")
        let listing = try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: String]
        #expect(Set(listing.map { Array($0.keys) } ?? []) == ["a/first.txt", "b/third.txt", "b/large-kept.bin"])
        for key in ["a/first.txt", "b/third.txt", "b/large-kept.bin"] {
            #expect(listing?[key] == sha256(files[key]!), "\(key)")
        }
    }

    /// When every listed file is gone by its turn, the archive is still valid (and empty), and says so.
    @Test func anExportWhoseFilesAllVanishedReportsThemAll() throws {
        let location = try FileStoreLocation(.posix)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data("x".utf8), to: "only.txt")
        let vanishing = FileStore(engine: VanishingEngine(store.engine, vanishing: ["only.txt"]))
        let archive = location.directory.appending("empty.zip")
        let summary = try vanishing.exportZip([""], to: archive)
        #expect(summary.missingKeys == ["only.txt"])
        #expect(summary.entries == 0)
        let check = try python("import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).infolist()))", [archive])
        #expect(check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// Keys that differ only in Unicode normalization (`café` in NFC and NFD) are two files, and two entries: the
    /// export tells keys apart by their scalars, as the store does. (Before, a `Set<String>` merged them and the
    /// archive held one.)
    @Test func canonicallyEquivalentKeysExportAsTwoEntries() throws {
        let location = try FileStoreLocation(.posix)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data("composed".utf8), to: "caf\u{E9}.txt")
        try store.write(Data("decomposed".utf8), to: "cafe\u{301}.txt")
        let archive = location.directory.appending("cafe.zip")
        let summary = try store.exportZip([""], to: archive)
        #expect(summary.entries == 2)
        #expect(summary.missingKeys.isEmpty)
        let entries = try ZipArchive(path: archive).entries.map { Array($0.name.unicodeScalars) }
        #expect(
            Set(entries.map { $0.map(\.value) }) == [
                [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x74, 0x78, 0x74],
                [0x63, 0x61, 0x66, 0x65, 0x301, 0x2E, 0x74, 0x78, 0x74],
            ])
    }
}

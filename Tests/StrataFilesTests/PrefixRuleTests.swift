import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataFiles

/// One prefix rule everywhere: a plain string prefix (as S3's and `Storage.keys(prefix:)`), a folder asked for by
/// ending the prefix with `/`.
@Suite("FileStore: a prefix is a plain string prefix")
struct PrefixRuleTests {
    static let keys = [
        "photos", "photos-old/a.jpg", "photos/a.jpg", "photos/2026/b.jpg", "photosynthesis.txt", "x.txt",
    ]

    /// Each prefix and the keys it matches: what `list`, `verify` and `exportZip` all agree on.
    static let cases: [(prefix: String, matches: [String])] = [
        ("", keys.sorted()),
        ("photos", ["photos", "photos-old/a.jpg", "photos/2026/b.jpg", "photos/a.jpg", "photosynthesis.txt"]),
        ("photos/", ["photos/2026/b.jpg", "photos/a.jpg"]),
        ("photos-", ["photos-old/a.jpg"]),
        ("photos/a", ["photos/a.jpg"]),
        ("photos/2026/", ["photos/2026/b.jpg"]),
        ("pho", ["photos", "photos-old/a.jpg", "photos/2026/b.jpg", "photos/a.jpg", "photosynthesis.txt"]),
        ("nothing", []),
        ("nothing/", []),
    ]

    /// A store holding ``keys``; `photos` is a file beside the folder `photos-old` (a file and a folder cannot
    /// share a name, so the folder `photos/` lives in a store of its own).
    func stores(_ engine: FileEngineKind) throws -> [(FileStoreLocation, FileStore, [String])] {
        var result: [(FileStoreLocation, FileStore, [String])] = []
        for keys in [Self.keys.filter { $0 != "photos" }, Self.keys.filter { !$0.hasPrefix("photos/") }] {
            let location = try FileStoreLocation(engine)
            let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
            for key in keys { try store.write(Data(key.utf8), to: key) }
            result.append((location, store, keys))
        }
        return result
    }

    @Test(arguments: FileEngineKind.available)
    func listVerifyAndExportMatchThePrefixAsAString(_ engine: FileEngineKind) throws {
        for (location, store, held) in try stores(engine) {
            for (prefix, matches) in Self.cases {
                let expected = matches.filter(held.contains)
                #expect(try store.list(prefix: prefix) == expected, "list(\(prefix))")
                #expect(try store.verify(prefix: prefix).isEmpty)
                let archive = location.directory.appending("p.zip")
                if expected.isEmpty {
                    #expect(throws: StorageError.self) { try store.exportZip([prefix], to: archive) }
                    continue
                }
                #expect(try store.exportZip([prefix], to: archive).entries == expected.count, "export(\(prefix))")
                #expect(Set(try ZipArchive(path: archive).entries.map(\.name)) == Set(expected), "export(\(prefix))")
            }
        }
    }

    /// `recursive: false` keeps the keys directly in the folder the prefix ends in.
    @Test func aShallowListingStaysInThePrefixsFolder() throws {
        let held = try stores(.posix)
        let store = held[0].1
        #expect(try store.list(prefix: "photos/", recursive: false) == ["photos/a.jpg"])
        #expect(try store.list(prefix: "pho", recursive: false) == ["photosynthesis.txt"])
    }

    @Test(arguments: FileEngineKind.available)
    func verifyReportsOnlyTheFilesThePrefixMatches(_ engine: FileEngineKind) throws {
        let location = try FileStoreLocation(engine)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data("a".utf8), to: "logs/a.txt")
        try store.write(Data("b".utf8), to: "logs-old/b.txt")
        #expect(try store.verify(prefix: "logs/").isEmpty)
        #expect(try store.verify(prefix: "logs").isEmpty)
        #expect(throws: StorageError.self) { try store.verify(prefix: "../") }
    }

    /// A cache area owns its folder, not every key that starts with its name: `thumbs` never evicts `thumbs-old/`.
    @Test func aCacheAreaEvictsOnlyInItsOwnFolder() throws {
        let location = try FileStoreLocation(.posix)
        let store = try location.open(configuration: FilesConfiguration(durability: .atomicOnly))
        try store.write(Data(count: 1_000), to: "thumbs-old/keep.jpg")
        let area = try store.cacheArea(prefix: "thumbs", byteLimit: 1_500)
        try area.put(Data(count: 1_000), for: "a.jpg")
        try area.put(Data(count: 1_000), for: "b.jpg")
        #expect(try store.exists("thumbs-old/keep.jpg"))
        #expect(try store.list(prefix: "thumbs/") == ["thumbs/b.jpg"])
    }
}

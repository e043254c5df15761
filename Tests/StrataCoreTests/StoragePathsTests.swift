import Foundation
import StrataCore
import StrataTestSupport
import Testing

@Suite("StoragePaths")
struct StoragePathsTests {
    let sandbox: TemporaryDirectory
    let paths: StoragePaths
    init() throws {
        sandbox = try TemporaryDirectory()
        paths = try StoragePaths(root: sandbox.appending("root"))
    }

    static let long = String(repeating: "a", count: 256)

    /// Keys that must never reach the disk, with the words their error must contain.
    static let hostileKeys: [(key: String, says: String)] = [
        ("", "empty"),
        ("..", "'..'"),
        ("../outside", "'..'"),
        ("a/../../outside", "'..'"),
        ("a/b/../../../outside", "'..'"),
        ("./a", "'.'"),
        ("a/.", "'.'"),
        ("/etc/passwd", "absolute"),
        ("//etc/passwd", "absolute"),
        ("a//b", "empty component"),
        ("trailing/", "empty component"),
        ("nul\0byte", "NUL"),
        ("a/\0/b", "NUL"),
        ("new\nline", "control character"),
        ("tab\there", "control character"),
        ("escape\u{1B}[31m", "control character"),
        ("del\u{7F}", "control character"),
        // C1 controls: some terminals obey U+009B as CSI, so "\u{9B}2J" clears the screen like ESC [2J.
        ("csi\u{9B}2J", "control character"),
        ("nel\u{85}x", "control character"),
        // Direction overrides and isolates disguise a name when it is shown ("report\u{202E}fdp.exe").
        ("report\u{202E}fdp.exe", "direction override"),
        ("isolate\u{2066}x", "direction override"),
        ("mark\u{200F}x", "direction override"),
        ("arabic\u{61C}mark", "direction override"),
        ("line\u{2028}separator", "control character"),
        ("..\\..\\windows", "backslash"),
        ("a\\b", "backslash"),
        (long, "255"),
        ("dir/" + long, "255"),
        (String(repeating: "abcdefgh/", count: 120), "limit is 1024"),
        (".strata-tmp-1-x", "reserved"),
        // A combining mark after '/' makes "/\u{301}" one Character: splitting on characters would miss the
        // separator (found by the path-mapping fuzz target).
        ("../\u{301}escape", "'..'"),
        ("a/../\u{301}../\u{301}escape", "'..'"),
        ("/\u{301}etc/passwd", "absolute"),
        ("a/.strata-lock", "reserved"),
    ]

    @Test func atLeastTwentyHostileKeys() {
        #expect(Self.hostileKeys.count >= 20)
    }

    @Test(arguments: hostileKeys)
    func hostileKeyIsRefused(_ key: String, _ says: String) throws {
        for tier in Tier.allCases {
            let error = #expect(throws: StorageError.self) { try paths.path(for: key, in: tier, createParents: true) }
            #expect(error?.code == .invalidKey)
            #expect(error?.key == key)
            #expect(error?.tier == tier)
            #expect(error?.message.contains(says) == true, "\(error?.message ?? "no error") should say \(says)")
        }
        // Nothing was created outside the root, and nothing but tier folders inside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.path) == ["root"])
        let inside = try FileManager.default.subpathsOfDirectory(atPath: paths.root)
        #expect(inside.allSatisfy { Tier.allCases.map(\.directoryName).contains($0) }, "created \(inside)")
    }

    @Test func combiningMarksAfterSlashStayInside() throws {
        let path = try paths.path(for: "a/\u{301}b/\u{59C}", in: .files, createParents: true)
        #expect(path.utf8.starts(with: (paths.root + "/files/").utf8))
        #expect(
            path.unicodeScalars.split(separator: "/").count == paths.root.unicodeScalars.split(separator: "/").count + 4
        )
    }

    @Test func keysAreKeptByTheirExactScalars() throws {
        let composed = try paths.path(for: "caf\u{E9}", in: .files, createParents: true)
        let decomposed = try paths.path(for: "cafe\u{301}", in: .files, createParents: true)
        #expect(!composed.isScalarIdentical(to: decomposed))
        #expect(composed.hasSuffix("caf\u{E9}") && decomposed.unicodeScalars.last == "\u{301}")
    }

    @Test func errorPrintsControlCharactersVisibly() {
        let error = #expect(throws: StorageError.self) { try StoragePaths.validateKey("a\0b\nc") }
        #expect(error?.description.contains(#""a\0b\nc""#) == true)
    }

    @Test func symlinkOutOfTheStoreIsRefused() throws {
        let outside = sandbox.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let files = try paths.directory(for: .files)
        try FileManager.default.createSymbolicLink(atPath: files + "/escape", withDestinationPath: outside)
        for key in ["escape/secret.txt", "escape/deeper/x", "escape"] {
            let error = #expect(throws: StorageError.self) { try paths.path(for: key, in: .files, createParents: true) }
            #expect(error?.code == .symbolicLink)
            #expect(error?.path == files + "/escape")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }

    @Test func symlinkedTierFolderIsRefused() throws {
        let outside = sandbox.appending("elsewhere")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: paths.root + "/secrets", withDestinationPath: outside)
        let error = #expect(throws: StorageError.self) { try paths.path(for: "k", in: .secrets, createParents: true) }
        #expect(error?.code == .symbolicLink)
    }

    @Test func aFileInTheMiddleOfAKeyIsRefused() throws {
        let files = try paths.directory(for: .files)
        _ = FileManager.default.createFile(atPath: files + "/plain", contents: Data())
        let error = #expect(throws: StorageError.self) {
            try paths.path(for: "plain/child", in: .files, createParents: true)
        }
        #expect(error?.code == .invalidKey)
    }

    @Test func goodKeysMapInsideTheTierFolderWithPrivateFolders() throws {
        let path = try paths.path(for: "exports/2026/report.pdf", in: .files, createParents: true)
        #expect(path == paths.root + "/files/exports/2026/report.pdf")
        for folder in [
            paths.root, paths.root + "/files", paths.root + "/files/exports", paths.root + "/files/exports/2026",
        ] {
            let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(folder)")
        }
        // Without createParents nothing is created, and a missing tier folder is fine.
        #expect(try paths.path(for: "a/b", in: .records) == paths.root + "/records/a/b")
        #expect(!FileManager.default.fileExists(atPath: paths.root + "/records"))
        #expect(try paths.path(for: "café/日本語 file.txt", in: .defaults).hasSuffix("defaults/café/日本語 file.txt"))
    }

    @Test func defaultRootFollowsXDG() throws {
        #expect(
            try StoragePaths.defaultRoot(appID: "com.example.app", environment: ["XDG_DATA_HOME": "/data/x/"])
                == "/data/x/com.example.app")
        #expect(
            try StoragePaths.defaultRoot(appID: "app", environment: ["HOME": "/home/u"]) == "/home/u/.local/share/app")
        #expect(
            try StoragePaths.defaultRoot(appID: "app", environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"])
                == "/h/.local/share/app")
        for bad in ["", "../x", "a/b", "."] {
            #expect(throws: StorageError.self) { try StoragePaths.defaultRoot(appID: bad, environment: ["HOME": "/h"]) }
        }
        let made = try StoragePaths(appID: "strata.test", environment: ["XDG_DATA_HOME": sandbox.appending("xdg")])
        #expect(made.root == sandbox.appending("xdg/strata.test"))
        #expect(FileManager.default.fileExists(atPath: made.root))
    }

    @Test func rootThatIsAFileIsRefused() throws {
        _ = FileManager.default.createFile(atPath: sandbox.appending("file"), contents: Data())
        let error = #expect(throws: StorageError.self) { try StoragePaths(root: sandbox.appending("file")) }
        #expect(error?.code == .invalidArgument)
        #expect(throws: StorageError.self) { try StoragePaths(root: sandbox.appending("absent"), create: false) }
    }
}

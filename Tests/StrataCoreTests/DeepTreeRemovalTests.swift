import Foundation
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataCore

/// `DirectoryHandle.removeTree` on trees deeper than a walk can recurse or hold descriptors for: it recursed once
/// per level, keeping each level's folder open, and overflowed the stack (a restore's staging folder, removed after a
/// failure, was then left behind).
@Suite("Directory handles: removing a tree of any depth")
struct DeepTreeRemovalTests {
    /// 100,000 levels: far past the stack of a recursive walk, and past this machine's descriptor limit (20,000) for
    /// a walk that holds one per level; beside it a wide level, files at several depths and links to outside.
    @Test func aTreeOfAnyDepthIsRemovedWithoutFollowingLinks() throws {
        let directory = try TemporaryDirectory(prefix: "strata-deep-remove", inMemory: true)
        defer { directory.remove() }
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(atPath: outside + "/inner", withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/inner/keep"))
        let tree = directory.appending("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: false)
        try DeepFolders.make(in: tree, depth: 100_000)
        try DeepFolders.make(in: tree, depth: 300)
        try FileManager.default.createDirectory(atPath: tree + "/wide", withIntermediateDirectories: false)
        for index in 0..<200 { try DeepFolders.make(in: tree + "/wide", depth: 2, name: "w\(index)") }
        try FileManager.default.createSymbolicLink(atPath: tree + "/link", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: tree + "/d/d/link", withDestinationPath: outside + "/inner")
        // A folder's name taken in advance by one the removal gives the entries it moves up.
        try FileManager.default.createDirectory(
            atPath: tree + "/d/.strata-removing-1/x", withIntermediateDirectories: true)

        try DirectoryHandle.open(path: directory.path).removeTree("tree")
        #expect(!FileManager.default.fileExists(atPath: tree))
        #expect(FileManager.default.contents(atPath: outside + "/inner/keep") == Data("keep".utf8))
    }

    /// A file, a link or nothing at the name: the file and the link are removed (never the link's target), nothing
    /// is nothing.
    @Test func aFileALinkOrNothingAtTheName() throws {
        let directory = try TemporaryDirectory(prefix: "strata-remove-file")
        defer { directory.remove() }
        try Data("target".utf8).write(to: URL(fileURLWithPath: directory.appending("target")))
        try Data("file".utf8).write(to: URL(fileURLWithPath: directory.appending("file")))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appending("link"), withDestinationPath: directory.appending("target"))
        let handle = try DirectoryHandle.open(path: directory.path)
        for name in ["file", "link", "absent"] { handle.removeTree(name) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["target"])
    }
}

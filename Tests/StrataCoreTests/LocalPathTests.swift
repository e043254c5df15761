import StrataCore
import StrataSystem
import Testing

/// Paths taken apart lexically, for every shape a user types.
@Suite("LocalPath")
struct LocalPathTests {
    @Test(arguments: [
        ("k", ".", "k"), ("./k", ".", "k"), ("../k", "..", "k"), ("/abs/k", "/abs", "k"), ("d/k", "d", "k"),
        ("d/k/", "d", "k"), ("/k", "/", "k"), ("a//b", "a", "b"), ("with space", ".", "with space"),
        ("x/./y", "x/.", "y"),
    ])
    func parentAndLastComponent(_ path: String, _ parent: String, _ last: String) {
        #expect(LocalPath(path).parent.string == parent, "\(path)")
        #expect(LocalPath(path).lastComponent == last, "\(path)")
    }

    @Test(arguments: ["", "/", ".", "..", "a/..", "a/."])
    func pathsThatNameNoFile(_ path: String) {
        #expect(LocalPath(path).lastComponent == nil, "\(path)")
    }

    @Test func parentsOfFolders() {
        #expect(LocalPath("/").parent.string == "/")
        #expect(LocalPath(".").parent.string == "./..")
        #expect(LocalPath("..").parent.string == "../..")
        #expect(LocalPath("").parent.string == "..")
    }

    @Test(arguments: [
        ("a/./b/../c", "a/c"), ("/a/../..", "/"), ("../a", "../a"), ("./", "."), ("a//b/", "a/b"), ("/x/./y/", "/x/y"),
        ("a/../..", ".."),
    ])
    func normalized(_ path: String, _ expected: String) {
        #expect(LocalPath(path).normalized == expected, "\(path)")
    }

    @Test func appending() {
        #expect(LocalPath("a").appending("b").string == "a/b")
        #expect(LocalPath("a/").appending("b").string == "a/b")
        #expect(LocalPath("/").appending("b").string == "/b")
        #expect(LocalPath("").appending("b").string == "b")
    }
}

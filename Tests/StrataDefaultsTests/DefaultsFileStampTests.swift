import Foundation
import StrataCore
import StrataDefaults
import StrataSystem
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A suite file whose new version carries the same device, inode, size and modification time as the one a store
/// read — two versions written within one clock tick, the second on the first's freed inode — must not be taken for
/// it: a merge or an `update` on the stale copy drops the other writer's value. The test makes such a version by
/// rewriting the file in place at the same size and setting its modification time back.
@Suite("DefaultsStore: a file's stamp vouches only once settled")
struct DefaultsFileStampTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// Rewrites the suite file in place, `old` replaced by `new` (same length), and sets its modification time back
    /// to what it was: only the change time tells the versions apart.
    func rewriteKeepingTimes(_ old: String, _ new: String) throws {
        let path = fixture.suitePath()
        var status = stat()
        #expect(stat(path, &status) == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let range = try #require(bytes.range(of: Data(old.utf8)))
        bytes.replaceSubrange(range, with: Data(new.utf8))
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        #expect(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == bytes.count)
        #if canImport(Darwin)
            var times = [status.st_atimespec, status.st_mtimespec]
        #else
            var times = [status.st_atim, status.st_mtim]
        #endif
        #expect(futimens(fd, &times) == 0)
        close(fd)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == status.st_ino && after.st_size == status.st_size)
    }

    @Test func aVersionWithTheSameInodeSizeAndTimeIsReadAgainSoAnUpdateKeepsIt() throws {
        let store = try fixture.store(durability: .atomicOnly)
        let motto = DefaultsKey<String>("motto", default: "")
        try store.set("aaaa", for: motto)
        try rewriteKeepingTimes("aaaa", "bbbb")  // Another writer, within the same tick.
        #expect(try store.update(motto) { $0 + "!" } == "bbbb!")
        try store.refresh()
        #expect(try store.value(for: motto) == "bbbb!")
    }

    @Test func aSettledStampStillSeesAnEditThatSetTheModificationTimeBack() throws {
        let writer = try fixture.store(durability: .atomicOnly)
        try writer.set("cccc", for: DefaultsKey<String>("motto", default: ""))
        Thread.sleep(forTimeInterval: FileStamp.settlingTime + 0.2)
        let store = try fixture.store("standard", durability: .atomicOnly)
        try store.refresh()  // Read now, settled: its stamp vouches.
        try rewriteKeepingTimes("cccc", "dddd")
        try store.refresh()
        #expect(try store.value(for: DefaultsKey<String>("motto", default: "")) == "dddd")
    }
}

import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// Documents that expand far beyond their bytes (shared bplist references) or nest too deep are refused when
/// read, so no walk over a value that was read can hang or overflow the stack.
@Suite("Property lists: expansion and depth limits")
struct PropertyListBoundsTests {
    /// A dictionary `{"bomb": A12}` where `Ak` is an array of `fanOut` references to `Ak-1` and `A0` a string:
    /// `fanOut`^`levels` leaves from a few hundred bytes.
    static func bomb(fanOut: Int, levels: Int) -> Data {
        var table = BinaryPropertyList.ObjectTable()
        var previous = table.add(.string("boom"))
        for _ in 0..<levels { previous = table.addArray(Array(repeating: previous, count: fanOut)) }
        let key = table.add(.string("bomb"))
        let top = table.addDictionary([(key, previous)])
        return table.encoded(top: top)
    }

    @Test func theSampleBombIsAFewHundredBytes() {
        #expect(Self.bomb(fanOut: 8, levels: 12).count < 200)
    }

    @Test(arguments: [(8, 12), (2, 60), (255, 5), (16, 8), (3, 30)])
    func aReferenceBombIsRefusedWhenRead(fanOut: Int, levels: Int) throws {
        let data = Self.bomb(fanOut: fanOut, levels: levels)
        let started = Date()
        #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(data) }
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func sharedReferencesWithinTheLimitsReadBackExpanded() throws {
        let data = Self.bomb(fanOut: 4, levels: 3)
        let value = try PropertyListFormat.decode(data)
        let leaf = PropertyListValue.string("boom")
        let level1 = PropertyListValue.array(Array(repeating: leaf, count: 4))
        let level2 = PropertyListValue.array(Array(repeating: level1, count: 4))
        #expect(value == .dictionary(["bomb": .array(Array(repeating: level2, count: 4))]))
        // Re-encoded expanded, it reads back the same.
        #expect(try PropertyListFormat.decode(PropertyListFormat.binary.encode(value.dictionaryValue!)) == value)
    }

    @Test func theExpandedSizeAndValueCountAreLimited() throws {
        let data = Self.bomb(fanOut: 10, levels: 4)  // 10,000 leaves, about 95 KB expanded.
        #expect(throws: Never.self) { try PropertyListFormat.decode(data) }
        #expect(throws: PropertyListError.self) {
            try PropertyListFormat.decode(data, limits: PropertyListLimits(maximumExpandedSize: 50_000))
        }
        #expect(throws: PropertyListError.self) {
            try PropertyListFormat.decode(data, limits: PropertyListLimits(maximumNodeCount: 10_000))
        }
        let xml = PropertyListFormat.xml.encode(try PropertyListFormat.decode(data).dictionaryValue!)
        #expect(throws: PropertyListError.self) {
            try PropertyListFormat.decode(xml, limits: PropertyListLimits(maximumExpandedSize: 50_000))
        }
        #expect(throws: PropertyListError.self) {
            try PropertyListFormat.decode(xml, limits: PropertyListLimits(maximumNodeCount: 10_000))
        }
    }

    /// A chain shared from a shallow place first and a deep place later: remembering the object must not let it
    /// skip the depth check the second time.
    @Test func aSharedSubtreeCountsItsHeightWhereverItIsReferenced() throws {
        var table = BinaryPropertyList.ObjectTable()
        var chain = table.add(.bool(true))
        for _ in 0..<200 { chain = table.addArray([chain]) }
        var deep = chain
        for _ in 0..<100 { deep = table.addArray([deep]) }
        let top = table.addArray([chain, deep])
        #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(table.encoded(top: top)) }
        let shallow = table.addArray([chain, chain])
        #expect(throws: Never.self) { try PropertyListFormat.decode(table.encoded(top: shallow)) }
    }

    @Test func aCycleIsRefused() {
        var table = BinaryPropertyList.ObjectTable()
        let array = table.addArray([1])
        table.addArray([array])
        #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(table.encoded(top: array)) }
    }

    @Test(arguments: PropertyListFormat.allCases, [PropertyListLimits.defaultMaximumDepth + 1, 5_000, 200_000])
    func deepNestingIsRefused(format: PropertyListFormat, depth: Int) throws {
        let data: Data
        switch format {
        case .xml:
            data = Data(
                ("<plist>" + String(repeating: "<array>", count: depth) + "<true/>"
                    + String(repeating: "</array>", count: depth) + "</plist>").utf8)
        case .binary:
            var table = BinaryPropertyList.ObjectTable()
            var chain = table.add(.integer(7))
            for _ in 0..<depth { chain = table.addArray([chain]) }
            data = table.encoded(top: chain)
        }
        #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(data) }
    }

    /// Reading, and every walk over, a value as deep as the limit allows fits in a secondary thread's 512 KiB
    /// stack, in both formats; a limit raised past ``PropertyListLimits/supportedMaximumDepth`` counts as that.
    /// Run in a child process, so an overflow fails the test instead of killing the runner. (The readers recursed,
    /// about 12 KiB a level in a debug build: 256 levels overflowed such a stack, and a raised limit any stack.)
    @Test(
        arguments: PropertyListFormat.allCases,
        [
            (PropertyListLimits.defaultMaximumDepth, nil), (PropertyListLimits.defaultMaximumDepth + 1, nil),
            (100_000, nil), (PropertyListLimits.supportedMaximumDepth, 1_000_000),
            (PropertyListLimits.supportedMaximumDepth + 1, 1_000_000), (100_000, 1_000_000),
        ] as [(Int, Int?)])
    func walksOverTheDeepestReadableValueDoNotOverflowTheStack(format: PropertyListFormat, nesting: (Int, Int?)) throws
    {
        let (depth, limit) = nesting
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(
            child, ["plist-deep-walks", "\(depth)", format.rawValue] + (limit.map { ["\($0)"] } ?? []), timeout: 60)
        #expect(!result.wasSignalled && result.status == 0, "\(result.standardError.suffix(2000))")
        let deepest = min(limit ?? PropertyListLimits.defaultMaximumDepth, PropertyListLimits.supportedMaximumDepth)
        let expected = depth <= deepest ? "walked" : "refused"
        #expect(result.standardOutput.hasPrefix(expected), "\(result.standardOutput)")
    }

    /// A value built in memory too deep (recursion overflowed the stack) or sharing its subtrees (8³⁰ leaves
    /// that the size estimate walked forever) is refused by `set` with a typed error, quickly. In a child, so a
    /// crash or a hang fails the test.
    @Test(arguments: [("deep", "invalid-argument"), ("bomb", "too-large")])
    func aHostileValueBuiltInMemoryIsRefusedBySet(kind: String, code: String) throws {
        let fixture = try Fixture()
        _ = try fixture.store()
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(child, ["defaults-set-hostile", fixture.root, kind], timeout: 30)
        #expect(!result.wasSignalled && result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "refused \(code)\n", "\(result.standardOutput)")
        let store = try fixture.store("hostile")
        #expect(store.allKeys.isEmpty)
    }

    /// The deepest value `set` accepts is one the suite file can hold: under the top dictionary, within the
    /// reader's depth limit, so the file still opens (one level deeper was accepted and made the suite unreadable).
    @Test func theDeepestValueSetIsReadBackFromTheFile() throws {
        let fixture = try Fixture()
        let store = try fixture.store()
        var deepest = PropertyListValue.bool(true)
        for _ in 0..<(PropertyListLimits.defaultMaximumDepth - 1) { deepest = .array([deepest]) }
        try store.set(deepest, forKey: "deepest")
        #expect(throws: StorageError.self) { try store.set(.array([deepest]), forKey: "deeper") }
        try store.flush()
        let reopened = try fixture.store()
        #expect(reopened.recoveries.isEmpty)
        #expect(reopened.object(forKey: "deepest") == deepest)
    }

    /// The bomb planted as a suite file: opening the suite ends quickly, the file is moved aside byte for byte,
    /// and the suite starts empty. Run in a child so that a hang fails the test (the child is killed).
    @Test(arguments: [(8, 12), (2, 60), (64, 6)])
    func aReferenceBombPlantedAsASuiteIsMovedAsideQuickly(fanOut: Int, levels: Int) throws {
        let fixture = try Fixture()
        _ = try fixture.store("bomb")
        let bomb = Self.bomb(fanOut: fanOut, levels: levels)
        try bomb.write(to: URL(fileURLWithPath: fixture.suitePath("bomb")))
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(child, ["defaults-open", fixture.root, "bomb"], timeout: 20)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "recoveries 1\nkeys 0\n")
        let folder = fixture.root + "/defaults"
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("bomb.plist.corrupt-")
        }
        #expect(aside.count == 1)
        #expect(FileManager.default.contents(atPath: folder + "/" + (aside.first ?? "")) == bomb)
        let store = try fixture.store("bomb")
        #expect(store.recoveries.isEmpty && store.allKeys.isEmpty)
    }

    @Test func importingAReferenceBombIsRefusedAsCorrupt() throws {
        let fixture = try Fixture()
        let store = try fixture.store()
        #expect {
            try store.importData(Self.bomb(fanOut: 8, levels: 12))
        } throws: { error in
            (error as? StorageError)?.code == .corrupt
        }
        #expect(store.allKeys.isEmpty)
    }
}

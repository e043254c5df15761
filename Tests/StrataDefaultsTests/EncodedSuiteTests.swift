import Foundation
import StrataCore
import StrataSystem
import StrataTestSupport
import Testing

@testable import StrataDefaults

/// A set of same-size scalars patches the suite file's last bytes instead of encoding the suite again
/// (``EncodedSuite``): the patched file must be exactly the suite, for our reader and for other programs', whatever
/// mix of changes comes (same size or not, removals, new keys, containers) and whoever else wrote the file between.
@Suite("Defaults: patching the suite file's bytes")
struct EncodedSuiteTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// A scalar of any type and of a varying encoded size.
    static func scalar(_ random: inout SeededGenerator) -> PropertyListValue {
        switch random.next() % 7 {
        case 0: .bool(random.next() % 2 == 0)
        case 1: .integer(Int64(random.next() % 300))
        case 2: .integer(Int64(bitPattern: random.next()) >> Int(random.next() % 60))
        case 3: .real(Double(random.next() % 10_000) / 8)  // Exact in XML too (plutil converts).
        case 4: .string(String(repeating: "v", count: Int(random.next() % 20)))
        case 5: .string(String(repeating: "é", count: Int(random.next() % 4)))
        default: .date(Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000)))
        }
    }

    static func value(_ random: inout SeededGenerator) -> PropertyListValue {
        switch random.next() % 10 {
        case 0: .array([scalar(&random), scalar(&random)])
        case 1: .dictionary(["inner": scalar(&random)])
        default: scalar(&random)
        }
    }

    /// The keys Foundation's reader (another program's) finds in a binary suite.
    static func foundationKeys(_ bytes: Data) throws -> Set<String> {
        let object = try PropertyListSerialization.propertyList(from: bytes, options: [], format: nil)
        return Set(try #require(object as? [String: Any]).keys)
    }

    static func keys(_ value: PropertyListValue) -> Set<String> {
        guard case .dictionary(let items) = value else { return [] }
        return Set(items.keys.map(\.string))
    }

    /// What the toolchain's `plutil` makes of the suite file: it must pass `-lint`, and its XML conversion must read
    /// back as `expected`.
    func plutilReads(_ expected: PropertyListValue, step: Int) throws {
        guard let plutil = DefaultsFileTests.plutil else { return }
        let lint = try ChildProcess.run(URL(fileURLWithPath: plutil), ["-lint", fixture.suitePath()])
        #expect(lint.status == 0, "step \(step): \(lint.standardOutput) \(lint.standardError)")
        let xml = fixture.directory.appending("converted-\(step).xml")
        let convert = try ChildProcess.run(
            URL(fileURLWithPath: plutil), ["-convert", "xml1", "-o", xml, fixture.suitePath()])
        #expect(convert.status == 0, "step \(step): \(convert.standardError)")
        #expect(try PropertyListFormat.decode(try Data(contentsOf: URL(fileURLWithPath: xml))) == expected)
    }

    @Test(arguments: 0..<20)
    func aPatchedDocumentIsTheChangedSuiteOrNothingChanges(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x5EED + seed)
        var suite: [ExactString: PropertyListValue] = [:]
        for index in 0..<40 { suite[ExactString("key.\(index)")] = Self.value(&random) }
        var encoded = BinaryPropertyList.encodeSuite(suite)
        // Noting where values lie changes nothing in what is written.
        #expect(encoded.bytes == BinaryPropertyList.encode(.dictionary(suite)))
        var patches = 0
        for _ in 0..<60 {
            var changes: [EncodedSuite.Change] = []
            for _ in 0..<(1 + random.next() % 3) {
                let key = ExactString("key.\(random.next() % 44)")  // Now and then a key the suite lacks.
                guard !changes.contains(where: { $0.key == key }) else { continue }
                let old = suite[key]
                let value: PropertyListValue?
                switch random.next() % 8 {
                case 0: value = nil
                case 1: value = Self.value(&random)
                default:
                    // Mostly the same size as now where the suite holds an integer: the case a patch is for.
                    if case .integer = old {
                        value = .integer(Int64(random.next() % 100))
                    } else {
                        value = Self.scalar(&random)
                    }
                }
                changes.append(EncodedSuite.Change(key: key, old: old, new: value))
            }
            let before = encoded.bytes
            var changed = suite
            for change in changes { changed[change.key] = change.new }
            let patched = encoded.patch(changes)
            if patched {
                patches += 1
                #expect(encoded.bytes.count == before.count)
                #expect(try PropertyListFormat.decode(encoded.bytes) == .dictionary(changed))
                #expect(try Self.foundationKeys(encoded.bytes) == Self.keys(.dictionary(changed)))
            } else {
                #expect(encoded.bytes == before)
                encoded = BinaryPropertyList.encodeSuite(changed)
            }
            suite = changed
        }
        #expect(patches > 0)
    }

    @Test func onlyReplacementsOfScalarsBySameSizeScalarsPatch() throws {
        var suite: [ExactString: PropertyListValue] = [
            "count": .integer(5), "name": .string("abc"), "list": .array([.integer(1)]), "flag": .bool(true),
        ]
        var encoded = BinaryPropertyList.encodeSuite(suite)
        func patches(_ changes: [(key: ExactString, value: PropertyListValue?)]) -> Bool {
            let made = changes.map { EncodedSuite.Change(key: $0.key, old: suite[$0.key], new: $0.value) }
            return encoded.patch(made)
        }
        #expect(patches([("count", .integer(200)), ("name", .string("xyz"))]))
        suite["count"] = .integer(200)
        suite["name"] = .string("xyz")
        #expect(patches([("flag", .bool(false))]))
        suite["flag"] = .bool(false)
        #expect(!patches([("count", .integer(300))]))  // Two bytes of integer, not one.
        #expect(!patches([("name", .string("abcd"))]))
        #expect(!patches([("list", .array([.integer(2)]))]))  // A container is encoded whole.
        #expect(!patches([("count", .array([]))]))
        #expect(!patches([("count", nil)]))  // A removal.
        #expect(!patches([("new", .integer(1))]))  // A key the suite lacks.
        // One change that cannot be patched leaves the others unmade too.
        #expect(!patches([("count", .integer(7)), ("name", .string("a"))]))
        // A document that does not hold what the caller says (not the rule) is left as it is, not patched wrongly.
        func patchesClaiming(_ change: EncodedSuite.Change) -> Bool { encoded.patch([change]) }
        #expect(!patchesClaiming(EncodedSuite.Change(key: "new", old: .integer(1), new: .integer(2))))
        #expect(!patchesClaiming(EncodedSuite.Change(key: "count", old: .integer(300), new: .integer(400))))
        let expected: [ExactString: PropertyListValue] = [
            "count": .integer(200), "name": .string("xyz"), "list": .array([.integer(1)]), "flag": .bool(false),
        ]
        #expect(try PropertyListFormat.decode(encoded.bytes) == .dictionary(expected))
    }

    /// Durable sets of every kind in a row: after each, the file holds exactly what the store reads, for our reader
    /// and Foundation's, and a store opened afresh reads the same.
    @Test func everyDurableSetLeavesTheFileEqualToTheSuite() throws {
        let store = try fixture.store(durability: .durable)
        var random = SeededGenerator(seed: 37)
        for index in 0..<30 { try store.set(Self.value(&random), forKey: "key.\(index)") }
        for step in 0..<80 {
            let key = "key.\(random.next() % 34)"
            if random.next() % 9 == 0 {
                try store.removeObject(forKey: key)
            } else if step % 2 == 0, case .integer = store.object(forKey: key) {
                try store.set(.integer(Int64(random.next() % 100)), forKey: key)
            } else {
                try store.set(Self.value(&random), forKey: key)
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
            let expected = PropertyListValue.dictionary(store.dictionaryRepresentation())
            #expect(try PropertyListFormat.decode(bytes) == expected, "step \(step)")
            #expect(try Self.foundationKeys(bytes) == Self.keys(expected), "step \(step)")
            if step % 20 == 19 { try plutilReads(expected, step: step) }
        }
    }

    /// Another program replaces the file between two sets (here Foundation's writer, as an app sharing the suite
    /// would): the next set merges with what it wrote and patches nothing of the bytes this store wrote before.
    @Test func aSetAfterAnotherProgramWroteKeepsWhatItWrote() throws {
        let store = try fixture.store(durability: .durable)
        for index in 0..<10 { try store.set(.integer(Int64(index)), forKey: "key.\(index)") }
        try store.set(.integer(1), forKey: "count")
        var foreign = try #require(
            try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())), options: [], format: nil)
                as? [String: Any])
        foreign["other"] = "theirs"
        foreign["key.3"] = 33
        let written = try PropertyListSerialization.data(fromPropertyList: foreign, format: .binary, options: 0)
        try AtomicFile.write(written, to: fixture.suitePath())
        try store.set(.integer(2), forKey: "count")  // The same size as before: patched, were the bytes still ours.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
        let file = try PropertyListFormat.decode(bytes)
        guard case .dictionary(let values) = file else {
            Issue.record("not a dictionary: \(file)")
            return
        }
        #expect(values["other"] == .string("theirs"))
        #expect(values["key.3"] == .integer(33))
        #expect(values["count"] == .integer(2))
        #expect(values.count == 12)
    }

    /// A patched write that fails (the disk full at the rename) leaves the file and the bytes kept for the next patch
    /// as they were: the set stays pending, and the next set writes both, exactly.
    @Test func aFailedPatchedWriteKeepsTheLastFileAndPatchesFromIt() throws {
        let store = try fixture.store(durability: .durable)
        for index in 0..<10 { try store.set(.integer(Int64(index)), forKey: "key.\(index)") }
        try store.set(.integer(1), forKey: "count")
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
        defer { FaultInjector.shared.reset() }
        FaultInjector.shared.inject(.error(ENOSPC), on: .rename, pathContaining: fixture.root + "/defaults/")
        #expect(throws: StorageError.self) { try store.set(.integer(2), forKey: "count") }
        FaultInjector.shared.reset()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())) == before)
        try store.set(.integer(3), forKey: "key.4")
        let file = try PropertyListFormat.decode(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())))
        #expect(file == .dictionary(store.dictionaryRepresentation()))
        #expect(store.object(forKey: "count") == .integer(2))
        #expect(store.object(forKey: "key.4") == .integer(3))
    }
}

import Foundation
import StrataCore
import StrataDefaults
import StrataSystem
import StrataTestSupport
import Testing

@Suite("DefaultsStore: unreadable files and interop")
struct DefaultsFileTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    func plant(_ data: Data) throws {
        try FileManager.default.createDirectory(atPath: fixture.root + "/defaults", withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: fixture.suitePath()))
    }

    static var validFile: Data {
        PropertyListFormat.binary.encode(["a": .integer(1), "list": .array([.string("x"), .bool(true)])])
    }

    @Test(arguments: [
        ("truncated", Data(validFile.prefix(validFile.count - 5))),
        ("garbage", Data("this is not a plist at all".utf8)),
        ("empty", Data()),
        ("json", Data(#"{"a": 1}"#.utf8)),
        (
            "top-level array",
            PropertyListFormat.binary.encode([:]).isEmpty ? Data() : BinaryPropertyList.encode(.array([.integer(1)]))
        ),
        ("broken xml", Data("<?xml version=\"1.0\"?><plist><dict><key>a</key><integer>1</dict></plist>".utf8)),
    ])
    func unreadableFileIsMovedAsideNotDeleted(_ name: String, _ content: Data) throws {
        try plant(content)
        let store = try fixture.store()
        #expect(store.allKeys.isEmpty)
        let recovery = try #require(store.recoveries.first, "\(name): no recovery reported")
        #expect(FileManager.default.contents(atPath: recovery.movedTo) == content, "the unreadable file is kept intact")
        #expect(!FileManager.default.fileExists(atPath: fixture.suitePath()))
        try store.set(.integer(2), forKey: "fresh")
        try store.flush()
        #expect(try fixture.store().object(forKey: "fresh") == .integer(2))
    }

    /// A suite file made unreadable by another program while this store has it open is moved aside by the write
    /// that finds it: a flush, an `update`, or a removal of a key not seen yet. Each already holds the suite's lock,
    /// which is not reentrant; the move used to ask for it again and waited for itself until the lock timed out.
    @Test(arguments: ["flush", "update", "remove"])
    func aSuiteDamagedWhileOpenIsMovedAsideByTheWriteThatFindsIt(_ operation: String) throws {
        let store = try DefaultsStore(
            suite: "standard", root: fixture.root,
            configuration: DefaultsConfiguration(
                durability: .coalesced(.seconds(60)), lockTimeout: .seconds(1), watchesExternalChanges: false))
        try store.set(.integer(1), forKey: "before")
        try store.flush()
        let damaged = Data("damaged by another program".utf8)
        let planted = fixture.suitePath() + ".planted"
        try damaged.write(to: URL(fileURLWithPath: planted))
        #expect(rename(planted, fixture.suitePath()) == 0)
        switch operation {
        case "flush":
            try store.set(.integer(2), forKey: "after")
            try store.flush()
        case "update":
            #expect(try store.update(DefaultsKey("after", default: 0)) { $0 + 2 } == 2)
        default:
            #expect(try !store.removeObject(forKey: "unseen"))
            try store.set(.integer(2), forKey: "after")
            try store.flush()
        }
        let recovery = try #require(store.recoveries.first, "\(operation): no recovery reported")
        #expect(FileManager.default.contents(atPath: recovery.movedTo) == damaged, "the unreadable file is kept intact")
        let reopened = try fixture.store()
        #expect(reopened.object(forKey: "after") == .integer(2))
        #expect(reopened.object(forKey: "before") == nil)
    }

    /// Another process wrote a key this store has not read yet (it does not watch the file): removing the key looks
    /// in the file first, under the suite's lock, so the removal is not missed and the value does not stay.
    @Test func removingAKeyWrittenElsewhereAndNotYetReadRemovesItFromTheFile() throws {
        let store = try fixture.store()
        try store.set(.integer(1), forKey: "kept")
        try store.flush()
        try plant(PropertyListFormat.binary.encode(["kept": .integer(1), "late": .string("LATE-VALUE-3b7e")]))
        #expect(try store.removeObject(forKey: "late"))
        try store.flush()
        let file = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
        #expect(file.range(of: Data("LATE-VALUE-3b7e".utf8)) == nil, "the removal missed the value in the file")
        #expect(try fixture.store().object(forKey: "kept") == .integer(1))
    }

    @Test func newerBinaryVersionIsRefusedAndLeftAlone() throws {
        var content = Self.validFile
        content.replaceSubrange(6..<8, with: Array("15".utf8))
        try plant(content)
        let error = #expect(throws: StorageError.self) { try fixture.store() }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.path == fixture.suitePath())
        #expect(FileManager.default.contents(atPath: fixture.suitePath()) == content)
    }

    @Test func damagedBinaryPlistsNeverCrashTheReader() throws {
        var value: [ExactString: PropertyListValue] = [:]
        for index in 0..<40 {
            value[ExactString("key\(index)")] = index % 2 == 0 ? .integer(Int64(index * 1000)) : .string("v\(index)é")
        }
        value["nested"] = .dictionary(["a": .array([.data(Data(count: 20)), .date(Date(timeIntervalSince1970: 0))])])
        let valid = PropertyListFormat.binary.encode(value)
        var generator = SeededGenerator(seed: 42)
        var refused = 0
        for round in 0..<3000 {
            var damaged = [UInt8](valid)
            if round % 3 == 0 {
                damaged = Array(damaged.prefix(Int.random(in: 0..<damaged.count, using: &generator)))
            } else {
                for _ in 0...(round % 4) {
                    let index = Int.random(in: 0..<damaged.count, using: &generator)
                    damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
            }
            do {
                _ = try PropertyListFormat.decode(Data(damaged))
            } catch {
                refused += 1
                #expect(error.offset >= 0)
            }
        }
        #expect(refused > 1000)
    }

    @Test func hostileStructuresAreRefused() throws {
        // An array that contains itself.
        var cyclic = Array("bplist00".utf8)
        cyclic += [0xA1, 0x00]  // Object 0: an array of one reference, to object 0.
        let table = cyclic.count
        cyclic += [8]
        cyclic += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(1) + bigEndian(0) + bigEndian(UInt64(table))
        let error = #expect(throws: PropertyListError.self) { try BinaryPropertyList.decode(Data(cyclic)) }
        #expect(error?.message.contains("contains itself") == true)
        // A data object claiming 2^60 bytes.
        var huge = Array("bplist00".utf8)
        huge += [0x4F, 0x13] + bigEndian(1 << 60)
        let hugeTable = huge.count
        huge += [8]
        huge += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(1) + bigEndian(0) + bigEndian(UInt64(hugeTable))
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.decode(Data(huge)) }
        // Nesting 10,000 arrays deep in XML.
        let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        let deepError = #expect(throws: PropertyListError.self) { try XMLPropertyList.decode(Data(deep.utf8)) }
        #expect(deepError?.message.contains("deeper") == true)
    }

    func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    // MARK: Interop with the toolchain's plutil

    static var plutil: String? {
        ["/opt/swift/usr/bin/plutil", "/usr/bin/plutil"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func run(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(URL(fileURLWithPath: try #require(Self.plutil)), arguments)
    }

    static let sample: [ExactString: PropertyListValue] = [
        "bool": .bool(true), "false": .bool(false), "small": .integer(7), "negative": .integer(-123_456_789_012),
        "large": .integer(1 << 40), "real": .real(-0.125), "ascii": .string("plain"), "unicode": .string("naïve 日本 🌍"),
        "data": .data(Data((0..<200).map { UInt8($0) })),
        "date": .date(Date(timeIntervalSinceReferenceDate: 123_456_789)),
        "array": .array((0..<20).map { .integer(Int64($0)) }), "empty": .dictionary([:]),
        "nested": .dictionary(["inner": .array([.string("plain"), .dictionary(["deep": .bool(false)])])]),
        "long string": .string(String(repeating: "abc", count: 100)),
    ]

    @Test(.enabled(if: plutil != nil), arguments: PropertyListFormat.allCases)
    func ourFilesPassPlutilLint(_ format: PropertyListFormat) throws {
        let path = fixture.directory.appending("ours.\(format).plist")
        try format.encode(Self.sample).write(to: URL(fileURLWithPath: path))
        let lint = try run(["-lint", path])
        #expect(lint.status == 0, "\(lint.standardOutput) \(lint.standardError)")
        #expect(lint.standardOutput.contains("OK"))
        // plutil converts ours to XML; our reader gets the same values back from its output.
        let xml = fixture.directory.appending("converted-\(format).xml")
        let convert = try run(["-convert", "xml1", "-o", xml, path])
        #expect(convert.status == 0, "\(convert.standardError)")
        let roundTrip = try PropertyListFormat.decode(try Data(contentsOf: URL(fileURLWithPath: xml)))
        #expect(roundTrip == .dictionary(Self.sample))
    }

    @Test(.enabled(if: plutil != nil), arguments: ["xml1", "binary1"])
    func plutilsFilesAreRead(_ format: String) throws {
        let json = fixture.directory.appending("source.json")
        try Data(
            #"{"name": "Ada", "count": 42, "ratio": 0.5, "on": true, "list": [1, "two", false], "map": {"k": "v"}, "unicode": "größe ✓"}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: json))
        let converted = fixture.directory.appending("plutil.\(format)")
        let result = try run(["-convert", format, "-o", converted, json])
        #expect(result.status == 0, "\(result.standardError)")
        try plant(try Data(contentsOf: URL(fileURLWithPath: converted)))
        let store = try fixture.store()
        #expect(store.recoveries.isEmpty)
        #expect(store[DefaultsKey("name", default: "")] == "Ada")
        #expect(store[DefaultsKey("count", default: 0)] == 42)
        #expect(store[DefaultsKey("ratio", default: 0.0 as Double)] == 0.5)
        #expect(store[DefaultsKey("on", default: false)] == true)
        #expect(store.object(forKey: "list") == .array([.integer(1), .string("two"), .bool(false)]))
        #expect(store[DefaultsKey("map", default: [String: String]())] == ["k": "v"])
        #expect(store[DefaultsKey("unicode", default: "")] == "größe ✓")
    }

    @Test func macOSDefaultsExportIsRead() throws {
        // What `defaults export com.example -` prints on macOS: tabs, a comment-free XML plist with a date and data.
        let exported = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>NSWindow Frame Main</key>
            \t<string>0 0 1280 800 0 0 1440 875 </string>
            \t<key>LastLaunch</key>
            \t<date>2026-11-02T09:15:00Z</date>
            \t<key>Blob</key>
            \t<data>
            \tAAECAwQ=
            \t</data>
            \t<key>Escaped</key>
            \t<string>&lt;tag&gt; &amp; &#x263A; &#9731;</string>
            \t<key>Empty</key>
            \t<string></string>
            \t<key>Cdata</key>
            \t<string><![CDATA[a < b]]></string>
            </dict>
            </plist>
            """
        try plant(Data(exported.utf8))
        let store = try fixture.store()
        #expect(store.recoveries.isEmpty)
        #expect(store.object(forKey: "LastLaunch") == .date(ISO8601DateFormatter().date(from: "2026-11-02T09:15:00Z")!))
        #expect(store.object(forKey: "Blob") == .data(Data([0, 1, 2, 3, 4])))
        #expect(store.object(forKey: "Escaped") == .string("<tag> & ☺ ☃"))
        #expect(store.object(forKey: "Empty") == .string(""))
        #expect(store.object(forKey: "Cdata") == .string("a < b"))
    }
}

/// The identity check of a suite file goes through the seam (it used to call lstat directly): a failed stat
/// is taken as "changed" and the suite is read again, never lost.
@Suite("DefaultsStore: faults at the seam", .serialized)
struct DefaultsFaultTests {
    @Test func anInjectedStatFaultOnlyCausesARereadAndAReadFaultIsTyped() throws {
        let directory = try TemporaryDirectory(prefix: "strata-defaults-faults")
        defer { FaultInjector.shared.reset() }
        let store = try DefaultsStore(
            root: directory.appending("root"),
            configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
        try store.set(.string("kept"), forKey: "k")
        FaultInjector.shared.inject(.error(EIO), on: .stat, pathContaining: directory.path + "/root/defaults/")
        try store.refresh()
        #expect(FaultInjector.shared.injectedCount == 1)
        FaultInjector.shared.inject(.error(EIO), on: .stat, pathContaining: directory.path + "/root/defaults/")
        FaultInjector.shared.inject(.error(EIO), on: .open, pathContaining: directory.path + "/root/defaults/")
        let error = #expect(throws: StorageError.self) { try store.refresh() }
        #expect(error?.errno == EIO)
        FaultInjector.shared.reset()
        #expect(store.object(forKey: "k") == .string("kept"))
    }

    /// An `update` whose write fails changes nothing: the value reads as before, and a retry transforms that value,
    /// not the one that never reached the file (a launch counter went up by two).
    @Test(arguments: [SystemCall.write, .fsync, .rename])
    func anUpdateWhoseWriteFailsChangesNothing(_ call: SystemCall) throws {
        let directory = try TemporaryDirectory(prefix: "strata-defaults-update-fault")
        defer { FaultInjector.shared.reset() }
        let store = try DefaultsStore(
            root: directory.appending("root"),
            configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
        let launches = DefaultsKey<Int>("launches", default: 0)
        try store.update(launches) { $0 + 1 }
        FaultInjector.shared.inject(.error(ENOSPC), on: call, pathContaining: directory.path + "/root/defaults/")
        #expect(throws: StorageError.self) { try store.update(launches) { $0 + 1 } }
        FaultInjector.shared.reset()
        #expect(store[launches] == 1)
        #expect(try store.update(launches) { $0 + 1 } == 2)
        let reopened = try DefaultsStore(
            root: directory.appending("root"),
            configuration: DefaultsConfiguration(durability: .durable, watchesExternalChanges: false))
        #expect(reopened[launches] == 2)
    }
}

import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// Keys are kept by their exact Unicode scalars: `café` written NFC and NFD are two keys, in plist files and in
/// the store, each with its own value.
@Suite("Property lists: keys kept by their exact scalars")
struct PropertyListKeyTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    /// A suite file holding both spellings, written by hand (not by our writer).
    static func twinsFile(_ format: PropertyListFormat) -> Data {
        switch format {
        case .binary:
            var table = BinaryPropertyList.ObjectTable()
            let first = table.add(.string(nfc))
            let second = table.add(.string(nfd))
            let one = table.add(.integer(1))
            let two = table.add(.integer(2))
            let top = table.addDictionary([(first, one), (second, two)])
            return table.encoded(top: top)
        case .xml:
            return Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0">
                <dict>
                \t<key>\(nfc)</key>
                \t<integer>1</integer>
                \t<key>\(nfd)</key>
                \t<integer>2</integer>
                </dict>
                </plist>

                """.utf8)
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func twinKeysInAFileReadAsTwoEntriesAndAreWrittenBack(format: PropertyListFormat) throws {
        let fixture = try Fixture()
        _ = try fixture.store()
        try Self.twinsFile(format).write(to: URL(fileURLWithPath: fixture.suitePath()))
        let store = try fixture.store(durability: .durable, format: format)
        #expect(store.recoveries.isEmpty)
        #expect(store.allKeys.count == 2)
        #expect(store.object(forKey: Self.nfc) == .integer(1))
        #expect(store.object(forKey: Self.nfd) == .integer(2))
        // Rewriting the file (another key set) keeps both twins with their own values.
        try store.set(.string("x"), forKey: "other")
        let again = try fixture.store(format: format)
        #expect(again.recoveries.isEmpty && again.allKeys.count == 3)
        #expect(again.object(forKey: Self.nfc) == .integer(1))
        #expect(again.object(forKey: Self.nfd) == .integer(2))
        #expect(Set(again.allKeys.map { ExactString($0) }) == [ExactString(Self.nfc), ExactString(Self.nfd), "other"])
    }

    @Test(arguments: PropertyListFormat.allCases)
    func twinKeysSetThroughTheStoreSurviveAReloadAndAnotherProcesssMerge(format: PropertyListFormat) throws {
        let fixture = try Fixture()
        let store = try fixture.store(format: format)
        try store.set(1, for: DefaultsKey<Int>(Self.nfc, default: 0))
        try store.set(2, for: DefaultsKey<Int>(Self.nfd, default: 0))
        #expect(store.allKeys.count == 2)
        try store.flush()
        // Another process rewrites the suite (its own key), then this one writes again: a per-key merge.
        let child = try TestExecutables.url(named: "strata-test-child")
        let result = try ChildProcess.run(child, ["defaults-set", fixture.root, "standard", "other", "y", "immediate"])
        #expect(result.status == 0, "\(result.standardError)")
        try store.set(3, for: DefaultsKey<Int>(Self.nfc, default: 0))
        try store.flush()
        let reopened = try fixture.store(format: format)
        #expect(reopened.allKeys.count == 3)
        #expect(reopened[DefaultsKey<Int>(Self.nfc, default: 0)] == 3)
        #expect(reopened[DefaultsKey<Int>(Self.nfd, default: 0)] == 2)
        #expect(reopened.object(forKey: "other") == .string("y"))
        // And the other process setting one twin leaves the other alone.
        let second = try ChildProcess.run(
            child, ["defaults-set", fixture.root, "standard", Self.nfd, "z", "immediate"])
        #expect(second.status == 0, "\(second.standardError)")
        try reopened.refresh()
        #expect(reopened.object(forKey: Self.nfd) == .string("z"))
        #expect(reopened.object(forKey: Self.nfc) == .integer(3))
    }

    @Test(arguments: PropertyListFormat.allCases)
    func aKeyWrittenTwiceWithTheSameScalarsIsRefused(format: PropertyListFormat) throws {
        let data: Data
        switch format {
        case .binary:
            var table = BinaryPropertyList.ObjectTable()
            let key = table.add(.string(Self.nfc))
            let copy = table.add(.string(Self.nfc))
            let one = table.add(.integer(1))
            let two = table.add(.integer(2))
            let top = table.addDictionary([(key, one), (copy, two)])
            data = table.encoded(top: top)
        case .xml:
            data = Data(
                "<plist><dict><key>\(Self.nfc)</key><integer>1</integer><key>\(Self.nfc)</key><integer>2</integer></dict></plist>"
                    .utf8)
        }
        #expect(throws: PropertyListError.self) { try PropertyListFormat.decode(data) }
        // As a suite file: moved aside, not half-read.
        let fixture = try Fixture()
        _ = try fixture.store()
        try data.write(to: URL(fileURLWithPath: fixture.suitePath()))
        let store = try fixture.store()
        #expect(store.recoveries.count == 1)
        #expect(store.allKeys.isEmpty)
    }

    @Test(arguments: PropertyListFormat.allCases)
    func writtenTwinsPassPlutilLint(format: PropertyListFormat) throws {
        let fixture = try Fixture()
        let store = try fixture.store(durability: .durable, format: format)
        try store.set(.integer(1), forKey: Self.nfc)
        try store.set(.integer(2), forKey: Self.nfd)
        try store.set(.string("<&\u{301}>"), forKey: "&\u{301}<")
        guard let plutil = DefaultsFileTests.plutil else { return }
        let lint = try ChildProcess.run(URL(fileURLWithPath: plutil), ["-lint", fixture.suitePath()])
        #expect(lint.status == 0, "\(lint.standardOutput)\(lint.standardError)")
        let again = try fixture.store(format: format)
        #expect(again.object(forKey: "&\u{301}<") == .string("<&\u{301}>"))
        #expect(again.object(forKey: Self.nfc) == .integer(1) && again.object(forKey: Self.nfd) == .integer(2))
    }
}

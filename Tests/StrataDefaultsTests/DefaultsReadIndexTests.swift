import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// Reads go through a ``ReadIndex`` of the suite's values once enough reads follow a change: it must answer exactly
/// what the values dictionary answers (keys by their exact scalars), and never a value older than the last change.
@Suite("DefaultsStore: the read index")
struct DefaultsReadIndexTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    /// SipHash's published vectors (key 00…0f, message 00…n-1), through the one implementation the index's
    /// SipHash-1-3 also runs.
    @Test(arguments: [
        (0, 0x726f_db47_dd0e_0e31 as UInt64), (1, 0x74f8_39c5_93dc_67fd), (8, 0x93f5_f579_9a93_2462),
        (15, 0xa129_ca61_49be_45e5), (63, 0x958a_324c_eb06_4572),
    ])
    func sipHashMatchesTheReferenceVectors(length: Int, expected: UInt64) {
        let key = (UInt64(0x0706_0504_0302_0100), UInt64(0x0f0e_0d0c_0b0a_0908))
        let message = (0..<length).map { UInt8($0) }
        let hash = message.withUnsafeBytes {
            ReadIndex.sipHash($0, key: key, compressionRounds: 2, finalizationRounds: 4)
        }
        #expect(hash == expected)
        let reduced = Array((0..<15).map { UInt8($0) }).withUnsafeBytes { ReadIndex.sipHash13($0, key: key) }
        #expect(reduced == 0xd320_d86d_2a51_9956)
    }

    /// Every key of a dictionary (twin spellings, the empty key, keys of every length around a word) reads as the
    /// dictionary reads it; keys it does not hold (a prefix, an extension, the other spelling) read as `nil`.
    @Test func theIndexAnswersExactlyWhatTheDictionaryAnswers() {
        var dictionary: [ExactString: PropertyListValue] = [
            "caf\u{E9}": .integer(1), "cafe\u{301}": .integer(2), "": .string("empty"), "\u{1F600}": .bool(true),
        ]
        for length in 1...40 {
            dictionary[ExactString(String(repeating: "k", count: length))] = .integer(Int64(length))
        }
        for index in 0..<1000 { dictionary[ExactString("preference.key.\(index)")] = .real(Double(index) / 7) }
        let readIndex = ReadIndex(dictionary)
        for (key, value) in dictionary { #expect(readIndex.value(for: key) == value, "\(key)") }
        for absent in [
            "caf", "caf\u{E9}e", "Caf\u{E9}", "preference.key.1000", "preference.key.",
            String(repeating: "k", count: 41),
        ] {
            #expect(readIndex.value(for: ExactString(absent)) == nil, "\(absent)")
        }
        #expect(ReadIndex([:]).value(for: "anything") == nil)
    }

    /// After enough reads the store reads through its index; a set, a removal, a set through another store on the
    /// suite and another process's write are each seen by the very next read.
    @Test func readsAfterTheIndexIsBuiltSeeEveryLaterChange() throws {
        let store = try fixture.store()
        let twin = try fixture.store()
        for index in 0..<30 { try store.set(.integer(Int64(index)), forKey: "key.\(index)") }
        try store.set(.integer(1), forKey: "caf\u{E9}")
        try store.set(.integer(2), forKey: "cafe\u{301}")
        func readAll() {
            for _ in 0..<5 {
                for index in 0..<30 { #expect(store.object(forKey: "key.\(index)") == .integer(Int64(index))) }
            }
        }
        readAll()
        #expect(store.object(forKey: "caf\u{E9}") == .integer(1))
        #expect(store.object(forKey: "cafe\u{301}") == .integer(2))
        try store.set(.string("new"), forKey: "key.3")
        #expect(store.object(forKey: "key.3") == .string("new"))
        #expect(try store.removeObject(forKey: "key.3"))
        #expect(store.object(forKey: "key.3") == nil)
        #expect(!store.containsValue(forKey: "key.3"))
        try store.set(.integer(3), forKey: "key.3")
        readAll()
        try twin.set(.string("twin"), forKey: "key.4")
        #expect(store.object(forKey: "key.4") == .string("twin"))
        try twin.set(.integer(4), forKey: "key.4")
        readAll()
        try twin.flush()
        let child = try TestExecutables.url(named: "strata-test-child")
        let process = try ChildProcess(
            child, ["defaults-set", fixture.root, "standard", "key.5", "other", "immediate"])
        #expect(process.wait().status == 0)
        try store.refresh()
        #expect(store.object(forKey: "key.5") == .string("other"))
        #expect(store.containsValue(forKey: "key.5"))
    }
}

import Foundation
import StrataCore
import StrataDefaults
import StrataTestSupport
import Testing

/// A stored value of another type than the key's is never taken for "unset": `update` throws `type-mismatch`
/// naming the stored type and writes nothing; the subscript returns the key's default, and `value(for:)` and
/// `typeMismatch(for:)` say why.
@Suite struct DefaultsTypeMismatchTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    /// The typed API on a value of each other type: update refuses, nothing is overwritten.
    @Test(arguments: [
        PropertyListValue.string("5"), .bool(true), .real(1.5), .data(Data([1])), .array([.integer(1)]),
        .date(Date(timeIntervalSince1970: 0)),
    ])
    func updateRefusesAStoredValueOfAnotherType(stored: PropertyListValue) throws {
        let store = try fixture.store(durability: .durable)
        try store.set(stored, forKey: "launchCount")
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
        var called = false
        let error = #expect(throws: StorageError.self) {
            try store.update(.launches) {
                called = true
                return $0 + 1
            }
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == "launchCount")
        #expect(error?.message.contains(stored.typeName) == true, "\(String(describing: error))")
        #expect(!called)
        #expect(store.object(forKey: "launchCount") == stored)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())) == before)
    }

    @Test func theSubscriptReturnsTheDefaultAndTheMismatchIsObservable() throws {
        let store = try fixture.store()
        #expect(store.typeMismatch(for: .launches) == nil)
        try store.set(.string("5"), forKey: "launchCount")
        #expect(store[.launches] == 0)
        #expect(throws: StorageError.self) { try store.value(for: .launches) }
        let mismatch = store.typeMismatch(for: .launches)
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.message.contains("string") == true)
        #expect(store.typeMismatch(for: DefaultsKey<String>("launchCount", default: "")) == nil)
        try store.set(4, for: .launches)
        #expect(store.typeMismatch(for: .launches) == nil)
        #expect(try store.update(.launches) { $0 + 1 } == 5)
    }

    @Test func aRegisteredValueOfAnotherTypeIsRefusedToo() throws {
        let store = try fixture.store()
        store.register(defaults: [ExactString("launchCount"): .string("zero")])
        #expect(throws: StorageError.self) { try store.update(.launches) { $0 + 1 } }
        #expect(!store.contains(.launches))
    }

    /// The report: `strata defaults set launchCount 5 --type string` (a new key's `5` is an integer since
    /// issue 36), then `update` through the typed API.
    @Test func aStringSetByTheCommandLineToolIsNeverOverwrittenByUpdate() throws {
        let strata = try TestExecutables.url(named: "strata")
        let set = try ChildProcess.run(
            strata, ["defaults", "set", "launchCount", "5", "--type", "string", "--root", fixture.root, "--create"])
        #expect(set.status == 0, "\(set.standardError)")
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath()))
        let store = try fixture.store(durability: .durable)
        #expect(store.object(forKey: "launchCount") == .string("5"))
        let error = #expect(throws: StorageError.self) { try store.update(.launches) { $0 + 1 } }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("string") == true)
        try store.flush()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.suitePath())) == before)
        let read = try ChildProcess.run(strata, ["defaults", "get", "launchCount", "--root", fixture.root])
        #expect(read.standardOutput.contains("5"), "\(read.standardOutput)")
    }
}
